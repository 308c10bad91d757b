import type { z } from 'zod'
import type { FieldError } from './errors.ts'

/** zod's issues as the API's field errors: a dotted path and a sentence saying what to fix. */
export function zodFieldErrors(error: z.ZodError): FieldError[] {
  return error.issues.flatMap((issue): FieldError[] => {
    const path = issue.path.map(String).join('.')
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        field: path ? `${path}.${key}` : key,
        message: `Unknown field '${key}'. Check its spelling against the API reference.`,
      }))
    }
    if (issue.code === 'invalid_type' && issue.message.endsWith('received undefined')) {
      return [{ field: path, message: `${path || 'The body'} is required.` }]
    }
    return [{ field: path || '(body)', message: issue.message }]
  })
}

/**
 * PostgreSQL text cannot hold NUL characters; refusing them up front turns what would be
 * a database error into a 422 that names the field.
 */
export function withoutNul<T extends z.ZodString>(schema: T) {
  return schema.refine((value) => !value.includes('\u0000'), { message: 'must not contain NUL (\\u0000) characters.' })
}
