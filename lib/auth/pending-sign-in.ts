import { createHash, randomBytes } from 'node:crypto'
import { recordAudit } from '../audit.ts'
import { createId } from '../ids.ts'
import { systemDb } from '../tenancy/tenant-db.ts'

/**
 * The half-way state of a two-step sign-in: the first step (a password) was right and the
 * member has a second factor, so instead of a session the browser gets a token naming this
 * row. The second step (a TOTP or recovery code; a passkey) reads it, and consumes it on
 * success. It dies after a few minutes or after too many wrong codes, so a stolen password
 * buys an attacker at most five guesses per sign-in (and each sign-in costs a password check
 * the sign-in limits count).
 */
export const pendingSignInLifetimeMs = 5 * 60 * 1000
export const maxSecondFactorAttempts = 5

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

/**
 * A new pending sign-in for the member; the token goes to the browser, only its hash is kept.
 * `provedSince`: when the first step's proof (the password; the identity provider's answer) began
 * (proofBegan in portal-sessions.ts), kept as the row's createdAt: the sign-in's proof began then, and its session,
 * whenever the second step comes, starts only if the member's sessions were not ended since
 * (startPortalSession). A password step before a password change and a code step after it
 * signed in with the old password (sec58).
 */
export async function issuePendingSignIn(user: { id: string; tenantId: string }, provedSince: Date): Promise<string> {
  const token = randomBytes(32).toString('base64url')
  const now = new Date()
  await systemDb().pendingSignIn.create({
    data: { id: createId('psi'), tenantId: user.tenantId, userId: user.id, tokenHash: hashToken(token), createdAt: provedSince, expiresAt: new Date(now.getTime() + pendingSignInLifetimeMs) },
  })
  return token
}

/** The pending sign-in a token names while it is alive (unexpired, unconsumed, under the attempt limit), else null; `provedSince`: when its first step's proof began. */
export async function readPendingSignIn(token: string): Promise<{ id: string; userId: string; tenantId: string; provedSince: Date } | null> {
  if (typeof token !== 'string' || token.length < 20 || token.length > 200) return null
  const row = await systemDb().pendingSignIn.findUnique({ where: { tokenHash: hashToken(token) }, select: { id: true, userId: true, tenantId: true, expiresAt: true, consumedAt: true, attempts: true, createdAt: true } })
  if (!row || row.consumedAt || row.expiresAt.getTime() <= Date.now() || row.attempts >= maxSecondFactorAttempts) return null
  return { id: row.id, userId: row.userId, tenantId: row.tenantId, provedSince: row.createdAt }
}

/** The second step succeeded: the pending sign-in can never be used again. */
export async function consumePendingSignIn(id: string): Promise<void> {
  await systemDb().pendingSignIn.updateMany({ where: { id, consumedAt: null }, data: { consumedAt: new Date() } })
}

/**
 * A wrong code against a pending sign-in. Counted atomically (two wrong codes sent at once
 * both count); the one that reaches the limit kills it and is audited. Returns the attempts left.
 */
export async function recordFailedSecondFactor(id: string, address: string): Promise<number> {
  const [row] = await systemDb().$queryRaw<{ attempts: number; user_id: string; tenant_id: string }[]>`
    UPDATE pending_sign_ins SET attempts = attempts + 1 WHERE id = ${id} AND consumed_at IS NULL RETURNING attempts, user_id, tenant_id`
  if (!row) return 0
  if (row.attempts === maxSecondFactorAttempts) {
    await recordAudit(systemDb(), {
      tenantId: row.tenant_id, actorId: row.user_id, action: 'two_factor.sign_in_locked', targetType: 'user', targetId: row.user_id,
      metadata: { attempts: row.attempts, address: address.slice(0, 64), pending_sign_in: id },
    })
  }
  return Math.max(0, maxSecondFactorAttempts - row.attempts)
}
