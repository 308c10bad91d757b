import type { FieldError } from '../errors.ts'
import { textResponse } from './text-response.ts'

/** The title of each problem code (contract: Errors). */
export const problemTitles: Record<string, string> = {
  malformed_json: 'Malformed JSON',
  request_aborted: 'Request aborted',
  unauthenticated: 'Authentication required',
  insufficient_scope: 'Insufficient scope',
  forbidden: 'Forbidden',
  not_found: 'Not found',
  method_not_allowed: 'Method not allowed',
  invalid_transition: 'Invalid transition',
  article_archived: 'Article is archived',
  concurrent_update: 'Concurrent update',
  webhook_disabled: 'Webhook is disabled',
  precondition_failed: 'Precondition failed',
  too_many_items: 'Too many items',
  payload_too_large: 'Payload too large',
  unsupported_media_type: 'Unsupported media type',
  validation_failed: 'Validation failed',
  idempotency_key_reused: 'Idempotency key reused',
  idempotency_key_in_use: 'Idempotency key in use',
  rate_limited: 'Rate limit exceeded',
  internal_error: 'Internal error',
  service_unavailable: 'Service unavailable',
}

export type Problem = {
  status: number
  code: string
  detail: string
  errors?: FieldError[]
  extra?: Record<string, unknown>
}

/** An RFC 9457 problem+json response; `type` points at the error's entry in the API reference. */
export function problemResponse(problem: Problem, requestId: string, headers: HeadersInit = {}): Response {
  const body = {
    type: `/docs/api#error-${problem.code}`,
    title: problemTitles[problem.code] ?? 'Error',
    status: problem.status,
    detail: problem.detail,
    code: problem.code,
    request_id: requestId,
    ...(problem.errors && { errors: problem.errors }),
    ...problem.extra,
  }
  const responseHeaders = new Headers(headers)
  responseHeaders.set('Content-Type', 'application/problem+json')
  responseHeaders.set('X-Request-Id', requestId)
  responseHeaders.set('Cache-Control', 'no-store')
  return textResponse(JSON.stringify(body), { status: problem.status, headers: responseHeaders })
}
