import type { oas31 } from 'zod-openapi'
import { declareOperation, operationPaths } from '../openapi/api-operation.ts'
import { validationErrors } from '../openapi/validation-examples.ts'
import { apiRequestListSchema, apiRequestSchema, listApiRequestsQuerySchema, type ApiRequestRecord } from '../../request-log/request-log-schemas.ts'

export const requestLogTags: oas31.TagObject[] = [
  {
    name: 'Request log',
    description:
      "Every /v1 request made with one of the newsroom's keys, kept 30 days: method, route, query parameter names, status, problem code, duration. Find a failed call by the `request_id` its problem carried.",
  },
]

const failed = apiRequestSchema.parse(apiRequestSchema.meta()?.example)
const succeeded: ApiRequestRecord = { ...failed, request_id: 'req_0mhx2k1s9q3v8w4t6y1z2a3b4c', method: 'GET', route: '/v1/articles', query_keys: ['limit', 'status'], status: 200, problem_code: null, duration_ms: 9 }

export const listApiRequestsOperation = declareOperation({
  method: 'GET',
  path: '/v1/requests',
  query: listApiRequestsQuerySchema,
  operationId: 'listApiRequests',
  summary: 'List recorded API requests',
  tags: ['Request log'],
  scope: 'admin',
  description: [
    "The newsroom's /v1 requests made with its API keys, newest first. Only the names of query parameters are kept, never their values, headers or bodies.",
    'Requests are written in batches about a second after they are answered, so the newest may take that long to appear; entries older than 30 days are deleted.',
    '',
    '**Paging:** `limit` 1 to 200 (default 50) and `offset` 0 to 10,000 (default 0); out of range is a 422 (page further with the cursor). `next_offset` is `null` on the last page. Every page also has `next_cursor`: send it back as `cursor` (same filters, no `offset`) for the next page, found by position rather than by counting, so a deep page costs what the first does; null on the last page.',
  ].join('\n'),
  requestParams: { query: listApiRequestsQuerySchema },
  success: {
    status: 200,
    description: 'A page of requests.',
    schema: apiRequestListSchema,
    examples: { page: { summary: 'A failed PATCH and a list', value: { items: [failed, succeeded], total: 2, limit: 50, offset: 0, next_offset: null, next_cursor: null } } },
  },
  problems: [
    {
      code: 'validation_failed',
      when: 'A parameter is out of range, malformed or unknown.',
      detail: 'The request query parameters have invalid fields; see errors.',
      errors: validationErrors(listApiRequestsQuerySchema, { status: '4x' }),
    },
  ],
})

export const requestLogPaths = operationPaths([listApiRequestsOperation])
