import type { FieldError } from '../errors.ts'
import { problemCatalogue, problemType, type ProblemCode } from '../problem-codes.ts'
import { textResponse } from './text-response.ts'

export type Problem = {
  code: ProblemCode
  detail: string
  errors?: FieldError[]
  extra?: Record<string, unknown>
}

/** The answer to a failure of ours: nothing the client can fix, so it says what to quote. */
export function internalErrorResponse(requestId: string, headers: HeadersInit = {}): Response {
  return problemResponse({ code: 'internal_error', detail: `Something went wrong on our side. Quote request id ${requestId} if you contact support.` }, requestId, headers)
}

/** An RFC 9457 problem+json response; `type` points at the error's entry in the API reference. */
export function problemResponse(problem: Problem, requestId: string, headers: HeadersInit = {}): Response {
  const status = problemCatalogue[problem.code].status
  const body = {
    type: problemType(problem.code),
    title: problemCatalogue[problem.code].title,
    status,
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
  return textResponse(JSON.stringify(body), { status, headers: responseHeaders })
}
