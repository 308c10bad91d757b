import type { z } from 'zod'
import { ValidationError } from './errors.ts'
import { zodFieldErrors } from './validation.ts'

/** Parses with a zod schema; failures become a ValidationError naming each field. */
export function parseInput<T extends z.ZodType>(schema: T, input: unknown, message?: string): z.output<T> {
  const parsed = schema.safeParse(input)
  if (!parsed.success) throw new ValidationError(zodFieldErrors(parsed.error), message)
  return parsed.data
}
