import type { z } from 'zod'
import type { FieldError } from '../../errors.ts'
import { zodFieldErrors } from '../../validation.ts'
import type { ProblemCase } from './api-operation.ts'

/** The field errors a schema really reports for `input`, so documented examples never drift. */
export function validationErrors(schema: z.ZodType, input: unknown): FieldError[] {
  const parsed = schema.safeParse(input)
  if (parsed.success) throw new Error(`The example ${JSON.stringify(input)} was meant to be invalid.`)
  return zodFieldErrors(parsed.error)
}

export function validationProblem(when: string, errors: FieldError[], name?: string): ProblemCase {
  return { code: 'validation_failed', when, name, detail: 'The request body has invalid fields; see errors.', errors }
}
