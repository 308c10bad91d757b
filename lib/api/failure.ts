import { DomainError, ServiceUnavailableError, ValidationError } from '../errors.ts'
import { createId } from '../ids.ts'
import { logger } from '../ops/logger.ts'
import { problemCatalogue } from '../problem-codes.ts'
import { isDatabaseUnavailable } from './database-errors.ts'
import { problemResponse, type Problem } from './problem.ts'

/**
 * What a client is told about a failure, decided once for every door: the /v1 wrapper
 * (errorResponse), the portal's tRPC (lib/trpc/init.ts errorFormatter), the portal's own route
 * handlers (withRouteFailures) and server actions (actionFailure). A domain refusal carries its
 * own words; anything else (a Prisma error, a bug, a driver's message) becomes the same generic
 * problem with a request id, and its detail goes to the server log under that id, never to the
 * client: Prisma's wording, stack frames and SQL stay on the server.
 */
export type Failure = {
  problem: Problem
  status: number
  headers: Record<string, string>
  /** True when the failure was ours (logged with the request id), not the caller's. */
  unexpected: boolean
}

export function describeFailure(error: unknown, requestId: string, where = 'request'): Failure {
  if (error instanceof ValidationError) {
    return known({ code: 'validation_failed', detail: error.message, errors: error.fieldErrors })
  }
  if (error instanceof ServiceUnavailableError) {
    return { ...known({ code: error.code, detail: error.message }), headers: { 'Retry-After': String(error.retryAfterSeconds) } }
  }
  if (error instanceof DomainError) {
    // The unread rest of an oversized body would otherwise poison a kept-alive connection.
    return { ...known({ code: error.code, detail: error.message, extra: error.extra }), headers: error.code === 'payload_too_large' ? { Connection: 'close' } : {} }
  }
  if (isDatabaseUnavailable(error)) {
    logger.error({ request_id: requestId, where, error: (error as Error)?.message }, 'database unavailable')
    return {
      problem: { code: 'service_unavailable', detail: 'The service cannot reach its database right now; retry shortly.' },
      status: problemCatalogue.service_unavailable.status,
      headers: { 'Retry-After': '5' },
      unexpected: true,
    }
  }
  logger.error({ request_id: requestId, where, err: error }, 'unexpected error')
  return {
    problem: { code: 'internal_error', detail: genericDetail(requestId) },
    status: problemCatalogue.internal_error.status,
    headers: {},
    unexpected: true,
  }
}

/** The one sentence an unexpected failure shows, wherever it happens. */
export function genericDetail(requestId: string): string {
  return `Something went wrong on our side. Quote request id ${requestId} if you contact support.`
}

function known(problem: Problem): Failure {
  return { problem, status: problemCatalogue[problem.code].status, headers: {}, unexpected: false }
}

/** The problem+json answer for a failure (the /v1 form, and the portal route handlers'). */
export function failureResponse(error: unknown, requestId: string, headers: Record<string, string> = {}, where?: string): Response {
  const failure = describeFailure(error, requestId, where)
  return problemResponse(failure.problem, requestId, { ...headers, ...failure.headers })
}

type Handler<Args extends unknown[]> = (...args: Args) => Promise<Response>

/**
 * Wraps a portal route handler (app/api/...): whatever it throws is answered through
 * describeFailure, so an unexpected error is a generic problem with a request id, never
 * Next's error page or a driver's text.
 */
export function withRouteFailures<Args extends unknown[]>(where: string, handler: Handler<Args>): Handler<Args> {
  return async (...args: Args) => {
    try {
      return await handler(...args)
    } catch (error) {
      return failureResponse(error, createId('req'), {}, where)
    }
  }
}

/** What a server action returns when it fails: the same words and request id as every other door. */
export type ActionFailure = { ok: false; code: string; message: string; requestId: string; fieldErrors?: Problem['errors'] }

export function actionFailure(error: unknown, where = 'server action'): ActionFailure {
  const requestId = createId('req')
  const { problem } = describeFailure(error, requestId, where)
  return { ok: false, code: problem.code, message: problem.detail, requestId, ...(problem.errors && { fieldErrors: problem.errors }) }
}
