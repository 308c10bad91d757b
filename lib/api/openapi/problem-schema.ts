import { z } from 'zod'
import type { FieldError } from '../../errors.ts'
import { problemCatalogue, problemType, type ProblemCode } from '../../problem-codes.ts'

// The documented shape of lib/api/problem.ts's bodies. That module builds them from plain
// objects, so this schema describes rather than validates; a test compares the two.

export const fieldErrorSchema = z
  .object({
    field: z.string().meta({ description: 'Dotted path of the field, e.g. `tags.0`; `(body)` for the body as a whole.', example: 'headline' }),
    message: z.string().meta({ example: 'headline must not be empty.' }),
  })
  .meta({ id: 'FieldError' })

export const problemSchema = z
  .object({
    type: z.string().meta({ description: "A link to this code's entry in the API reference: `/docs/api#error-<code>`.", format: 'uri-reference' }),
    title: z.string().meta({ description: 'Short, human-readable summary of the code; the same for every occurrence.' }),
    status: z.number().int().meta({ description: 'The HTTP status, repeated.' }),
    detail: z.string().meta({ description: 'What went wrong in this request and how to fix it. For people, not for parsing.' }),
    code: z.string().meta({ description: 'Stable, machine-readable code (see Errors). Branch on this, not on `title` or `detail`.' }),
    request_id: z.string().meta({ description: 'Same as the `X-Request-Id` header; quote it to support.', example: 'req_0mhx2k1s9a1b2c3d4e5f6g7h8' }),
    errors: z.array(fieldErrorSchema).optional().meta({ description: 'Only with `validation_failed`: every invalid field.' }),
    from_state: z.string().optional().meta({ description: 'Only with `invalid_transition` and `article_archived`: the article\'s current state.' }),
    allowed_to_states: z.array(z.string()).optional().meta({ description: 'Only with `invalid_transition`: the states the article can move to from `from_state`.' }),
    limit: z.number().int().optional().meta({ description: 'Only with `webhook_limit_reached`: how many webhook subscriptions the newsroom may have.' }),
  })
  .meta({
    id: 'Problem',
    description: 'An RFC 9457 problem details body, sent as `application/problem+json` with every 4xx and 5xx response.',
  })

export type ProblemExample = {
  type: string
  title: string
  status: number
  detail: string
  code: string
  request_id: string
  errors?: FieldError[]
  [extension: string]: unknown
}

export const exampleRequestId = 'req_0mhx2k1s9a1b2c3d4e5f6g7h8'

/** A problem body as lib/api/problem.ts would send it, for the document's examples. */
export function problemExample(
  code: ProblemCode,
  detail: string,
  more: { errors?: FieldError[]; extra?: Record<string, unknown> } = {},
): ProblemExample {
  return {
    type: problemType(code),
    title: problemCatalogue[code].title,
    status: problemCatalogue[code].status,
    detail,
    code,
    request_id: exampleRequestId,
    ...(more.errors && { errors: more.errors }),
    ...more.extra,
  }
}
