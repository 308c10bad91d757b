import { withoutNul } from '../validation.ts'
import { z } from 'zod'

// A page by offset holds every entry before it in memory while it is found; a cursor does not.
export const maxRequestLogOffset = 10_000

const statusFilter = z
  .string()
  .regex(/^([1-5]xx|[1-5]\d\d)$/, 'status must be a status code (404) or a class (4xx).')
  .meta({ description: 'A status code (`404`) or a class (`2xx`, `4xx`, `5xx`).', example: '4xx' })

export const listApiRequestsQuerySchema = z
  .strictObject({
    token_id: withoutNul(z.string().min(1)).optional().meta({ description: 'Only requests made with this key (`tok_…`).', example: 'tok_0mhx5e2g4i6k8m0o2q4s6u8w0y' }),
    request_id: withoutNul(z.string().min(1)).optional().meta({ description: 'The request with this id: the `request_id` of a problem, or its `X-Request-Id`.', example: 'req_0mhx5e2g4i6k8m0o2q4s6u8w0y' }),
    status: statusFilter.optional(),
    limit: z.coerce.number().int('limit must be a whole number.').min(1, 'limit must be 1 to 200.').max(200, 'limit must be 1 to 200.').default(50),
    offset: z.coerce.number().int('offset must be a whole number.').min(0, 'offset must be 0 or more.').max(maxRequestLogOffset, `offset must be 0 to ${maxRequestLogOffset}; page further with cursor.`).default(0),
    cursor: withoutNul(z.string().min(1).max(1_024))
      .optional()
      .meta({ description: "The previous page's `next_cursor`: the page after it, found by position rather than by counting (as cheap deep in the list as on page 1). Not with `offset`." }),
  })
  .meta({ id: 'ListApiRequestsQuery' })

export type ListApiRequestsQuery = z.infer<typeof listApiRequestsQuerySchema>

export const apiRequestSchema = z
  .object({
    request_id: z.string().meta({ description: 'The id the response carried in `X-Request-Id` (and a problem in `request_id`).' }),
    token_id: z.string(),
    method: z.string(),
    route: z.string().meta({ description: 'The path with ids replaced by `{id}`.', example: '/v1/articles/{id}' }),
    query_keys: z.array(z.string()).meta({ description: 'Names of the query parameters sent; their values are never kept.' }),
    status: z.number().int(),
    problem_code: z.string().nullable().meta({ description: 'The problem code of a failed request; see the Errors section.' }),
    duration_ms: z.number().int(),
    client_address: z.string().nullable(),
    created_at: z.iso.datetime({ offset: true }),
  })
  .meta({
    id: 'ApiRequest',
    description: 'One /v1 request made with an API key.',
    example: {
      request_id: 'req_0mhx5e2g4i6k8m0o2q4s6u8w0y',
      token_id: 'tok_0mhx2k1s9q3v8w4t6y1z2a3b4c',
      method: 'PATCH',
      route: '/v1/articles/{id}',
      query_keys: [],
      status: 412,
      problem_code: 'precondition_failed',
      duration_ms: 14,
      client_address: '203.0.113.7',
      created_at: '2026-11-22T09:30:00.000Z',
    },
  })

export type ApiRequestRecord = z.infer<typeof apiRequestSchema>

export const apiRequestListSchema = z
  .object({ items: z.array(apiRequestSchema), total: z.number().int(), limit: z.number().int(), offset: z.number().int(), next_offset: z.number().int().nullable(), next_cursor: z.string().nullable().meta({ description: 'Send it as `cursor` (with the same filters) for the next page; null on the last page.' }) })
  .meta({ id: 'ApiRequestList' })
