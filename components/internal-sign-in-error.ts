/**
 * What the sign-in form shows for `InternalError:<request id>` (lib/auth/authorize-failures.ts):
 * a failure of ours, not a wrong password or code; null for any other error.
 */
export function internalSignInErrorMessage(error: string | undefined | null): string | null {
  if (!error?.startsWith('InternalError:')) return null
  return `Something went wrong on our side; nothing was wrong with what you entered. Try again, and quote request id ${error.slice('InternalError:'.length)} if you contact support.`
}
