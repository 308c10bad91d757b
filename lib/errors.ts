/**
 * Errors the domain raises. Each door (the /v1 wrapper, tRPC, the CLI) maps them to its
 * own form: problem+json for the API, a TRPCError for the portal, a message for the CLI.
 */
export type FieldError = { field: string; message: string }

export class DomainError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message)
    this.name = new.target.name
  }
}

export class NotFoundError extends DomainError {
  constructor(what: string, id: string) {
    super('not_found', 404, `No ${what} with id '${id}' exists in this newsroom.`)
  }
}

export class ValidationError extends DomainError {
  constructor(
    readonly fieldErrors: FieldError[],
    message = 'The request has invalid fields; see errors.',
  ) {
    super('validation_failed', 422, message)
  }
}

export class ConflictError extends DomainError {
  constructor(code: string, message: string, extra: Record<string, unknown> = {}) {
    super(code, 409, message, extra)
  }
}

export class PreconditionFailedError extends DomainError {
  constructor(message: string) {
    super('precondition_failed', 412, message)
  }
}

export class ForbiddenError extends DomainError {
  constructor(message: string, code = 'forbidden') {
    super(code, 403, message)
  }
}

/**
 * The service cannot answer now for a reason of its own (a dependency failed), so the caller
 * should retry after a moment rather than change anything on its side.
 */
export class ServiceUnavailableError extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds = 5,
    options?: { cause?: unknown },
  ) {
    super('service_unavailable', 503, message)
    if (options && 'cause' in options) this.cause = options.cause
  }
}
