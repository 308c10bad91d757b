import { TRPCClientError } from '@trpc/client'
import type { FieldError } from '@/lib/errors'
import { portalFieldMessage } from '@/lib/text/field-wording'
import type { AppRouter } from '@/lib/trpc/routers/app-router'

export type PortalError = {
  /** What to tell the person: the domain's own sentence where there is one. */
  message: string
  /** tRPC's code, e.g. PRECONDITION_FAILED, FORBIDDEN, CONFLICT. */
  code: string | null
  /** The domain's code, e.g. invalid_transition, article_archived. */
  domainCode: string | null
  fieldErrors: FieldError[]
}

// Words for failures that carry no domain sentence (the session, the network, a crash).
const fallbackMessages: Record<string, string> = {
  UNAUTHORIZED: 'Your session has ended. Sign in again, then retry.',
  INTERNAL_SERVER_ERROR: 'Something went wrong on our side; nothing was changed. Try again in a moment.',
  BAD_REQUEST: 'Some of the information sent was not valid. Check the fields and try again.',
  TOO_MANY_REQUESTS: 'Too many requests just now. Wait a moment and try again.',
}

/**
 * A failed procedure call, reduced to what a form or an alert shows: the one way the portal
 * words a failure, so a page in Settings and the article editor say the same thing of it.
 */
export function describePortalError(error: unknown): PortalError {
  if (error instanceof TRPCClientError) {
    const data = (error as TRPCClientError<AppRouter>).data
    const code = data?.code ?? null
    const domainCode = data?.domainCode ?? null
    // The API's field messages name JSON fields; a person reads the form's words (field-wording.ts).
    const fieldErrors = (data?.fieldErrors ?? []).map((fieldError) => ({ ...fieldError, message: portalFieldMessage(fieldError.field, fieldError.message) }))
    // "see errors" means nothing to a person: say what the errors are.
    const message =
      fieldErrors.length > 0
        ? fieldErrors.map((fieldError) => fieldError.message).join(' ')
        : domainCode
          ? error.message
          : ((code && fallbackMessages[code]) ?? error.message)
    return { message, code, domainCode, fieldErrors }
  }
  return {
    message: 'The newsroom service could not be reached; nothing was changed. Check your connection and try again.',
    code: null,
    domainCode: null,
    fieldErrors: [],
  }
}

/** The sentence for a failed call (describePortalError's message). */
export function refusalMessage(error: unknown): string {
  return describePortalError(error).message
}

/** The field errors of a failed call, to show beside the fields. */
export function fieldErrorsOf(error: unknown): FieldError[] {
  return describePortalError(error).fieldErrors
}
