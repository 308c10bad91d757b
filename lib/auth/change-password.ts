import { beginSignInAttempt } from './sign-in-throttle.ts'
import { recordAudit } from '../audit.ts'
import { DomainError, ValidationError } from '../errors.ts'
import type { Actor } from '../tenancy/actor.ts'
import { tenantDb } from '../tenancy/tenant-db.ts'
import { hashPassword, verifyPassword } from './passwords.ts'
import { endMemberSessions, lockMemberToEndSessions, type PortalSessionState } from './portal-sessions.ts'

/**
 * The member changes their own password: the current one proves it is them, and every other
 * session of theirs ends at its next request (whoever else held one knew the old password or
 * its session), as does any sign-in whose proof began before (startPortalSession). This session
 * stays, and counts as just confirmed.
 */
export async function changeOwnPassword(
  actor: Actor & { user: NonNullable<Actor['user']> },
  session: PortalSessionState,
  input: { currentPassword: string; newPassword: string },
  address: string,
): Promise<{ endedSessions: number }> {
  const tdb = tenantDb(actor.tenant.id)
  const user = await tdb.user.findUnique({ where: { id: actor.user.id }, select: { email: true, passwordHash: true } })
  if (!user) throw new DomainError('forbidden', 'Your account is gone.')
  // From a live session: the lock's few tries (which strangers may have used up) do not hold it back.
  const attempt = await beginSignInAttempt(user.email, address, 'password_change', 'password', { sessionId: session.id })
  if (attempt.refusal) throw new DomainError('rate_limited', attempt.refusal.message)
  if (!(await verifyPassword(user.passwordHash, input.currentPassword))) {
    await attempt.failed('wrong_password')
    throw new ValidationError([{ field: 'currentPassword', message: 'That is not your current password.' }])
  }
  await attempt.succeeded()
  if (input.currentPassword === input.newPassword) throw new ValidationError([{ field: 'newPassword', message: 'Choose a password different from the current one.' }])
  const passwordHash = await hashPassword(input.newPassword)
  return tdb.$transaction(async (tx) => {
    // The member's factor lock first, as every change that ends sessions takes it: a sign-in with
    // the old password checked just before cannot start its session just after the others were
    // ended (sec58). A session ended meanwhile (a reset, "sign out everywhere") changes nothing.
    const lock = await lockMemberToEndSessions(tx, actor.user.id, { session, what: 'your password was not changed' })
    await tx.user.update({ where: { id: actor.user.id }, data: { passwordHash } })
    const endedSessions = await endMemberSessions(tx, lock, 'password_changed', session.id)
    await tx.portalSession.updateMany({ where: { id: session.id }, data: { reauthenticatedAt: new Date() } })
    await recordAudit(tx, { tenantId: actor.tenant.id, actorId: actor.user.id, action: 'user.password_changed', targetType: 'user', targetId: actor.user.id, metadata: { ended_sessions: endedSessions } })
    return { endedSessions }
  })
}
