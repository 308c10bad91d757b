import { randomBytes } from 'node:crypto'
import { createId } from '../ids.ts'
import { processSingleton } from '../process-singleton.ts'

// A STAND-IN, kept only so the passkey branch compiles and its tests run: the two-factor branch
// owns the real module (a sign-in whose password step passed and whose second factor is still
// owed, stored in the database). These are exactly the exports the passkey provider uses; at
// merge the other branch's file replaces this one.

type PendingSignIn = { id: string; userId: string; tenantId: string; expiresAt: number }

const pendingLifetimeMs = 5 * 60 * 1000
// One map for the process (both module copies of `npm run dev`); the real module uses the database.
const pending = processSingleton('pending-sign-in-stand-in', () => new Map<string, PendingSignIn>())

/** A password step that passed for `user`: the token the second step must present. */
export async function issuePendingSignIn(user: { id: string; tenantId: string }): Promise<string> {
  const token = randomBytes(32).toString('base64url')
  pending.set(token, { id: createId('ses'), userId: user.id, tenantId: user.tenantId, expiresAt: Date.now() + pendingLifetimeMs })
  return token
}

/** The pending sign-in a token names, or null if unknown, used or expired. */
export async function readPendingSignIn(token: string): Promise<{ id: string; userId: string; tenantId: string } | null> {
  const found = pending.get(token)
  if (!found || found.expiresAt <= Date.now()) return null
  return { id: found.id, userId: found.userId, tenantId: found.tenantId }
}

/** Ends a pending sign-in once its second factor was proved, so the token cannot be used again. */
export async function consumePendingSignIn(id: string): Promise<void> {
  for (const [token, found] of pending) if (found.id === id) pending.delete(token)
}
