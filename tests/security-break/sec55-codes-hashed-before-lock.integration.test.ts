import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { hashRecoveryCode } from '../../lib/auth/recovery-codes.ts'
import { regenerateRecoveryCodes } from '../../lib/auth/two-factor.ts'
import { db } from '../../lib/db/client.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { memberOfTheirOwn } from '../support/member-of-their-own.ts'
import { holdLock, waitForLockWaiters } from '../support/row-locks.ts'

// sec55: new recovery codes are ten scrypt hashes (16 MB and tens of milliseconds each, more on
// a busy machine), and regenerating them (or confirming an app, or a first passkey) hashed them
// while holding the member's factor lock and a pooled connection: the member's other tabs and an
// admin's reset queued behind the hashing. The codes do not depend on anything the lock
// protects, so they are hashed first; the lock is then held for the writes only.

const { scryptCalls, countingScrypt } = await vi.hoisted(() => import('../support/scrypt-calls.ts'))
vi.mock('node:crypto', countingScrypt)

let newsroom: TestTenant

beforeAll(async () => {
  vi.stubEnv('WEBHOOK_SECRET_KEY', 'sec55-codes-hashed-before-lock-key')
  newsroom = await createTestTenant()
})
afterAll(() => vi.unstubAllEnvs())

/**
 * A member with a live session (the regeneration reads it again under the lock, break55) and, as
 * asked, a confirmed authenticator app (recovery codes need a factor to stand in for).
 */
async function memberWithSudo(app?: 'confirmed') {
  const { member, sessions } = await memberOfTheirOwn(newsroom, 's55h', { app, sessions: { sudo: 'Firefox' } })
  return { member, sudo: () => ({ id: sessions.sudo, reauthenticatedAt: new Date() }) }
}

describe('new recovery codes', () => {
  it('are hashed before the member\'s factor lock is taken, not while it is held', async () => {
    const { member, sudo } = await memberWithSudo('confirmed')
    const lock = await holdLock('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`second factors:${member.user.id}`])
    scryptCalls.count = 0
    const regenerate = regenerateRecoveryCodes(member, sudo())
    regenerate.catch(() => undefined)
    await waitForLockWaiters(1)
    const beforeTheLock = scryptCalls.count
    await lock.release()
    const { recoveryCodes } = await regenerate
    expect(recoveryCodes).toHaveLength(10)
    // All ten hashes were made while the request waited for the lock; none once it held it.
    expect({ beforeTheLock, holdingTheLock: scryptCalls.count - beforeTheLock }).toEqual({ beforeTheLock: 10, holdingTheLock: 0 })
  }, 30_000)

  it('two regenerations at once leave exactly one valid set: one tab\'s sheet, all ten, and nothing of the other', async () => {
    const { member, sudo } = await memberWithSudo('confirmed')
    const [a, b] = await Promise.all([regenerateRecoveryCodes(member, sudo()), regenerateRecoveryCodes(member, sudo())])
    const stored = new Set((await db.recoveryCode.findMany({ where: { userId: member.user.id, usedAt: null }, select: { codeHash: true } })).map((row) => row.codeHash))
    const live = async (codes: string[]) => (await Promise.all(codes.map((code) => hashRecoveryCode(code, member.user.id)))).filter((hash) => stored.has(hash)).length
    expect(stored.size).toBe(10)
    expect([await live(a.recoveryCodes), await live(b.recoveryCodes)].sort()).toEqual([0, 10])
  }, 30_000)

  it('are refused without a scrypt for a member with no app or passkey: no hashing spent on a request that cannot succeed', async () => {
    const { member, sudo } = await memberWithSudo()
    scryptCalls.count = 0
    await expect(regenerateRecoveryCodes(member, sudo())).rejects.toThrow(/Set up an authenticator app or a passkey first/)
    expect(scryptCalls.count).toBe(0)
    expect(await db.recoveryCode.count({ where: { userId: member.user.id } })).toBe(0)
  }, 30_000)
})
