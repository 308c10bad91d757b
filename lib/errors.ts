/**
 * Errors the domain raises. Each door (the /v1 wrapper, tRPC, the CLI) maps them to its
 * own form: problem+json for the API, a TRPCError for the portal, a message for the CLI.
 */
import { problemStatus, type ProblemCode } from './problem-codes.ts'

export type FieldError = { field: string; message: string }

/** A refusal with a code of the problem catalogue (lib/problem-codes.ts), which gives its status. */
export class DomainError extends Error {
  readonly status: number

  constructor(
    readonly code: ProblemCode,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message)
    this.name = new.target.name
    this.status = problemStatus(code)
  }
}

export class NotFoundError extends DomainError {
  constructor(what: string, id: string) {
    super('not_found', `No ${what} with id '${id}' exists in this newsroom.`)
  }
}

export class ValidationError extends DomainError {
  constructor(
    readonly fieldErrors: FieldError[],
    message = 'The request has invalid fields; see errors.',
  ) {
    super('validation_failed', message)
  }
}

export class ConflictError extends DomainError {
  constructor(code: ProblemCode, message: string, extra: Record<string, unknown> = {}) {
    super(code, message, extra)
  }
}

export class PreconditionFailedError extends DomainError {
  constructor(message: string) {
    super('precondition_failed', message)
  }
}

export class ForbiddenError extends DomainError {
  constructor(message: string, code: ProblemCode = 'forbidden') {
    super(code, message)
  }
}

/**
 * The service cannot answer now for a reason of its own (a dependency failed), so the caller
 * should retry after a moment rather than change anything on its side. With `rate_limited`
 * (429), the reason is the caller's share of a bounded resource (LARGE_BODY_PER_CLIENT): the
 * same Retry-After, told apart by its status.
 */
export class ServiceUnavailableError extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds = 5,
    options?: { cause?: unknown; code?: 'service_unavailable' | 'write_conflict' | 'rate_limited' },
  ) {
    super(options?.code ?? 'service_unavailable', message)
    if (options && 'cause' in options) this.cause = options.cause
  }
}
