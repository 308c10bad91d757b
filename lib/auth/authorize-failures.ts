import { describeFailure } from '../api/failure.ts'
import { createId } from '../ids.ts'

/** What the sign-in form is told about a failure of ours: `InternalError:<request id>` (the detail is in the server log under it). */
export const internalSignInError = 'InternalError'

type Authorize<Credentials, Request, Result> = (credentials: Credentials, request: Request) => Promise<Result>

/**
 * Wraps a next-auth credentials provider's `authorize`. next-auth hands the message of whatever
 * authorize throws to the browser (the `error` of the answer's URL), so an unexpected failure
 * (a Prisma error, a driver's message, a bug) would reach the sign-in form word for word, with
 * source paths and SQL states. Here it goes through the one failure formatter (lib/api/failure.ts),
 * which logs it under a request id, and the browser gets `InternalError:<request id>`. The
 * app's own coded refusals (`TooManySignInAttempts:…`, `SecondFactorRequired:…`) pass unchanged.
 *
 * A credential carrying a NUL byte cannot match anything stored (PostgreSQL text cannot hold
 * one): it is refused as a wrong one, before any query.
 */
export function withAuthorizeFailures<Credentials extends Record<string, unknown> | undefined, Request, Result>(
  where: string,
  knownCodes: readonly string[],
  authorize: Authorize<Credentials, Request, Result | null>,
): Authorize<Credentials, Request, Result | null> {
  return async (credentials, request) => {
    if (credentials && Object.values(credentials).some((value) => typeof value === 'string' && value.includes('\u0000'))) return null
    try {
      return await authorize(credentials, request)
    } catch (error) {
      const message = error instanceof Error ? error.message : ''
      if (knownCodes.some((code) => message === code || message.startsWith(`${code}:`))) throw error
      const requestId = createId('req')
      const failure = describeFailure(error, requestId, `sign-in ${where}`)
      // A domain refusal keeps its words; anything else is the generic failure with its request id.
      throw new Error(failure.unexpected ? `${internalSignInError}:${requestId}` : failure.problem.detail)
    }
  }
}
