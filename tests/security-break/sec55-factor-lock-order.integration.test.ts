import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { changeOwnPassword } from '../../lib/auth/change-password.ts'
import { passkeyRegistrationOptions, registerPasskey } from '../../lib/auth/passkeys.ts'
import { startPortalSession } from '../../lib/auth/portal-sessions.ts'
import { totpCode, totpStep } from '../../lib/auth/totp.ts'
import { confirmTotpEnrolment, resetSecondFactors, startTotpEnrolment } from '../../lib/auth/two-factor.ts'
import { db } from '../../lib/db/client.ts'
import { tenantDb } from '../../lib/tenancy/tenant-db.ts'
import { deactivateUser } from '../../lib/users/manage-users.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { memberOfTheirOwn } from '../support/member-of-their-own.ts'
import { holdLock, waitForLockWaiters } from '../support/row-locks.ts'
import { SoftwarePasskey } from '../support/software-authenticator.ts'

// sec55, for cc512df (break55): confirming an authenticator app and adding a passkey take the
// member's factor lock before any row of the member's factors, the order an admin's reset takes
// them in (the lock, then deleting the app's row and the passkeys). Confirming the other way
// round (the app's row, then the lock) while a reset held the lock and waited for that row was a
// deadlock: PostgreSQL aborted one of them (40P01) and the admin or the member got an internal
// error. Here the reset is queued for the lock first, the member's request second, so the reset
// goes first whatever the member's request holds by then.
// sec58: a password change and a deactivation end the member's sessions, so they take the lock
// too, and first: a password change that wrote the member's row before it (the reset writes that
// row under the lock), or a deactivation that locked the newsroom's row before it (the reset's
// audit entry needs that row), would deadlock with a reset queued ahead of them.

const publicUrl = 'https://cms.newsroom.example'
type Member = Parameters<typeof startTotpEnrolment>[0]
let newsroom: TestTenant

beforeAll(async () => {
  vi.stubEnv('NEXTAUTH_URL', publicUrl)
  vi.stubEnv('WEBHOOK_SECRET_KEY', 'sec55-factor-lock-order-key')
  newsroom = await createTestTenant()
})
afterAll(() => vi.unstubAllEnvs())

const newMember = async () => (await memberOfTheirOwn(newsroom, 's55o')).member

const admin = () => ({ tenant: { id: newsroom.tenant.id }, user: { id: newsroom.users.admin.id } }) as Parameters<typeof resetSecondFactors>[1]
const why = (o: PromiseSettledResult<unknown>) => (o.status === 'rejected' ? `${(o.reason as { code?: string }).code ?? ''} ${(o.reason as Error).message}`.replace(/\s+/g, ' ').slice(0, 200) : 'ok')

/** An admin's reset of `member`, queued for the member's factor lock (held by the test) before `request` is. */
async function resetThen(member: Member, request: () => Promise<unknown>) {
  const lock = await holdLock('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`second factors:${member.user.id}`])
  const reset = tenantDb(newsroom.tenant.id).$transaction((tx) => resetSecondFactors(tx, admin(), member.user.id), { timeout: 20_000 })
  reset.catch(() => undefined)
  await waitForLockWaiters(1)
  const requested = request()
  requested.catch(() => undefined)
  await waitForLockWaiters(2)
  await lock.release()
  return Promise.allSettled([reset, requested])
}

describe('the member\'s factor lock is taken before their factors\' rows', () => {
  it('confirming an authenticator app while an admin resets the member: no deadlock, the reset wins', async () => {
    const member = await newMember()
    const { secret } = await startTotpEnrolment(member, null, 'writer@example.test')
    const [reset, confirm] = await resetThen(member, () => confirmTotpEnrolment(member, null, totpCode(secret, totpStep())))
    expect(why(reset)).toBe('ok')
    // The member is told the set-up is gone (the reset took the key), never an internal error.
    expect(why(confirm)).toMatch(/^precondition_failed Start the set-up again/)
    expect(await db.totpFactor.count({ where: { userId: member.user.id } })).toBe(0)
    expect(await db.recoveryCode.count({ where: { userId: member.user.id } })).toBe(0)
  }, 30_000)

  it('adding a passkey while an admin resets the member: the reset wins, no passkey outlives it', async () => {
    const member = await newMember()
    const sessionId = await startPortalSession({ id: member.user.id, tenantId: member.tenant.id }, { userAgent: 'Firefox', address: '198.51.100.57' }, new Date())
    const session = { id: sessionId, reauthenticatedAt: new Date() }
    const key = new SoftwarePasskey({ origin: publicUrl, rpId: 'cms.newsroom.example' })
    const response = key.register(await passkeyRegistrationOptions(member, session))
    const [reset, register] = await resetThen(member, () => registerPasskey(member, session, { name: 'Laptop', response }))
    expect(why(reset)).toBe('ok')
    expect(why(register)).not.toMatch(/deadlock|40P01/)
    expect(register.status).toBe('rejected')
    expect(await db.passkey.count({ where: { userId: member.user.id } })).toBe(0)
    expect(await db.recoveryCode.count({ where: { userId: member.user.id } })).toBe(0)
  }, 30_000)

  it('a password change while an admin resets the member: no deadlock, the reset wins', async () => {
    const { member, id, sessions } = await memberOfTheirOwn(newsroom, 's58l', { sessions: { owner: 'Owner laptop' } })
    const [reset, change] = await resetThen(member, () => changeOwnPassword(member, { id: sessions.owner, reauthenticatedAt: new Date() }, { currentPassword: 'test-password', newPassword: 'sec58-lock-order-password' }, '198.51.100.10'))
    expect(why(reset)).toBe('ok')
    // The reset ended the session asking: it changes nothing now (its holder signs in again).
    expect(why(change)).toMatch(/^precondition_failed You were signed out .*so your password was not changed/)
    expect(await db.portalSession.count({ where: { userId: id, endedAt: null } })).toBe(0)
  }, 30_000)

  it('deactivating the member while an admin resets them: no deadlock, both done', async () => {
    const { member, id } = await memberOfTheirOwn(newsroom, 's58m', { sessions: { one: 'Laptop' } })
    const [reset, deactivation] = await resetThen(member, () => deactivateUser(newsroom.actor('admin'), { userId: id }))
    expect(why(reset)).toBe('ok')
    expect(why(deactivation)).toBe('ok')
    expect(await db.portalSession.count({ where: { userId: id, endedAt: null } })).toBe(0)
    expect(await db.user.findUniqueOrThrow({ where: { id } })).toMatchObject({ active: false })
  }, 30_000)
})
