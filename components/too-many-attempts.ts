import { describeWait } from '@/lib/time/describe-wait'

/**
 * What the sign-in form and its second step say to `TooManySignInAttempts:<seconds>[:locked]`
 * (lib/auth/auth-options.ts): the real wait, and, when the account is locked against guessing
 * and the member has no second factor, why their own address is refused too.
 */
export function tooManyAttemptsMessage(error: string): string {
  const [, seconds, locked] = error.split(':')
  const wait = Number(seconds)
  const when = Number.isFinite(wait) && wait > 0 ? `Try again in ${describeWait(wait)}.` : 'Try again in a few minutes.'
  if (locked === 'locked') return `This account is locked after too many failed sign-ins from elsewhere. ${when} With a second factor you can sign in from your own address even while it is locked.`
  return `Too many failed sign-ins from here. ${when}`
}
