import { beginSignInAttempt, failedWith } from './sign-in-throttle.ts'
import { DomainError, ValidationError } from '../errors.ts'
import type { Actor } from '../tenancy/actor.ts'
import { systemDb } from '../tenancy/tenant-db.ts'
import { verifyPassword } from './passwords.ts'
import type { PortalSessionState } from './portal-sessions.ts'

/**
 * GitHub's sudo mode: a dangerous act (a key with admin or webhooks:manage, a webhook secret's
 * rotation, a role change; later SSO and two-factor policy) needs the member to have proved who
 * they are within this long: by signing in, or by confirming again (the password now; a second
 * factor later calls markSessionReauthenticated the same way).
 */
export const reauthenticationWindowMs = 10 * 60 * 1000

/**
 * Refuses with `reauthentication_required` unless the session proved itself recently. Portal
 * doors call it before a dangerous act; API tokens are not sessions and never reach it.
 */
export function assertRecentlyAuthenticated(session: PortalSessionState | null | undefined, now = Date.now()): void {
  if (session && now - session.reauthenticatedAt.getTime() < reauthenticationWindowMs) return
  throw new DomainError('reauthentication_required', 'Confirm it is you: enter your password again to do this. It is asked for dangerous changes when you last signed in or confirmed more than 10 minutes ago.')
}

/** Marks the session as proved just now; what proved it (password, later TOTP or a passkey) has been checked by the caller. */
export async function markSessionReauthenticated(sessionId: string, userId: string, at = new Date()): Promise<Date> {
  await systemDb().portalSession.updateMany({ where: { id: sessionId, userId, endedAt: null }, data: { reauthenticatedAt: at } })
  return at
}

/**
 * Confirms the member with their password and marks the session. Failures count against the
 * same limits as sign-in, so a session left open cannot be used to guess the password.
 */
export async function reauthenticateWithPassword(actor: Actor & { user: NonNullable<Actor['user']> }, session: PortalSessionState, password: string, address: string): Promise<Date> {
  const user = await systemDb().user.findUnique({ where: { id: actor.user.id }, select: { email: true, passwordHash: true, active: true } })
  if (!user?.active) throw new DomainError('forbidden', 'Your account is deactivated.')
  // From a live session: the lock's few tries (which strangers may have used up) do not hold it back.
  const attempt = await beginSignInAttempt(user.email, address, 'reauthentication', 'password', { sessionId: session.id })
  if (attempt.refusal) throw new DomainError('rate_limited', attempt.refusal.message)
  if (!(await verifyPassword(user.passwordHash, password))) throw await failedWith(attempt, 'wrong_password', new ValidationError([{ field: 'password', message: 'That is not your password.' }], 'That is not your password.'))
  await attempt.succeeded()
  return markSessionReauthenticated(session.id, actor.user.id)
}
