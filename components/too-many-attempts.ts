import { describeWait } from '@/lib/time/describe-wait'

/**
 * What the sign-in form and its second step say to `TooManySignInAttempts:<seconds>[:locked]`
 * (lib/auth/auth-options.ts): the real wait, and, when the account is locked against guessing
 * and the member has no second factor, why their own address is refused too, and what still
 * works (a browser that signed in before: lib/auth/known-browser.ts).
 */
export function tooManyAttemptsMessage(error: string): string {
  const [, seconds, locked] = error.split(':')
  const wait = Number(seconds)
  const when = Number.isFinite(wait) && wait > 0 ? `Try again in ${describeWait(wait)}.` : 'Try again in a few minutes.'
  if (locked === 'locked') return `This account is locked after too many failed sign-ins from elsewhere. ${when} A browser you have signed in with before still gets in; with a second factor, any browser at your own address does.`
  return `Too many failed sign-ins from here. ${when}`
}
