import type { z } from 'zod'
import { ValidationError } from './errors.ts'
import { assertInputShape } from './input-shape.ts'
import { zodFieldErrors } from './validation.ts'

/**
 * Parses with a zod schema; failures become a ValidationError naming each field. Every input
 * is first held to what any input must be (lib/input-shape.ts: not nested too deep, valid
 * Unicode), so each door that parses through here (/v1, tRPC) refuses those alike.
 */
export function parseInput<T extends z.ZodType>(schema: T, input: unknown, message?: string): z.output<T> {
  assertInputShape(input)
  const parsed = schema.safeParse(input)
  if (!parsed.success) throw new ValidationError(zodFieldErrors(parsed.error), message)
  return parsed.data
}
