import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { passkeyRegistrationOptions, registerPasskey } from '../../lib/auth/passkeys.ts'
import { endOtherPortalSessions, startPortalSession } from '../../lib/auth/portal-sessions.ts'
import { totpCode, totpStep } from '../../lib/auth/totp.ts'
import { confirmTotpEnrolment, resetSecondFactors, startTotpEnrolment } from '../../lib/auth/two-factor.ts'
import { db } from '../../lib/db/client.ts'
import { tenantDb } from '../../lib/tenancy/tenant-db.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { memberOfTheirOwn } from '../support/member-of-their-own.ts'
import { holdLock, inTurnAtFactorLock, waitForLockWaiters } from '../support/row-locks.ts'
import { SoftwarePasskey } from '../support/software-authenticator.ts'

// sec55: registerPasskey checked the member's session (sudo mode) before its transaction. An
// admin's reset of the member's factors (which ends every session of theirs), or the member's
// "sign out everywhere else" from another device, that commits between that check and the
// insert still let the passkey be added: whoever held the session the reset was meant to end
// keeps a passkey, a sign-in by itself. The passkey must be refused once its session has ended.

const publicUrl = 'https://cms.newsroom.example'
type Actor = Parameters<typeof registerPasskey>[0]
let newsroom: TestTenant

beforeAll(async () => {
  vi.stubEnv('NEXTAUTH_URL', publicUrl)
  vi.stubEnv('WEBHOOK_SECRET_KEY', 'sec55-passkey-after-reset-key')
  newsroom = await createTestTenant()
})
afterAll(() => vi.unstubAllEnvs())

const newMember = async () => (await memberOfTheirOwn(newsroom, 's55p')).member

/** A registration parked after its session check (its challenge's row held), while `meanwhile` runs and commits. */
async function registerAround(member: Actor, meanwhile: (sessionId: string) => Promise<unknown>) {
  const sessionId = await startPortalSession({ id: member.user.id, tenantId: member.tenant.id }, { userAgent: 'Firefox', address: '198.51.100.55' }, new Date())
  const session = { id: sessionId, reauthenticatedAt: new Date() }
  const key = new SoftwarePasskey({ origin: publicUrl, rpId: 'cms.newsroom.example' })
  const response = key.register(await passkeyRegistrationOptions(member, session))
  const challenge = await holdLock('SELECT 1 FROM webauthn_challenges WHERE user_id = $1 FOR UPDATE', [member.user.id])
  const registration = registerPasskey(member, session, { name: 'Laptop', response })
  registration.catch(() => undefined)
  await waitForLockWaiters(1)
  await meanwhile(sessionId)
  await challenge.release()
  return Promise.allSettled([registration]).then(([outcome]) => outcome!)
}

describe('a passkey whose session ends while it is being added', () => {
  it('an admin\'s reset that lands between the session check and the insert: the passkey is refused', async () => {
    const member = await newMember()
    const admin = { tenant: { id: newsroom.tenant.id }, user: { id: newsroom.users.admin.id } } as Parameters<typeof resetSecondFactors>[1]
    const outcome = await registerAround(member, () => tenantDb(newsroom.tenant.id).$transaction((tx) => resetSecondFactors(tx, admin, member.user.id), { timeout: 20_000 }))
    expect(outcome.status).toBe('rejected')
    // What the admin was told ("factors reset, sessions ended") holds: no passkey, no codes.
    expect(await db.passkey.count({ where: { userId: member.user.id } })).toBe(0)
    expect(await db.recoveryCode.count({ where: { userId: member.user.id } })).toBe(0)
  }, 30_000)

  it('"sign out everywhere else" from another device meanwhile: the passkey is refused', async () => {
    const { member, sessions: { phone: other } } = await memberOfTheirOwn(newsroom, 's55p', { sessions: { phone: 'Phone' } })
    const outcome = await registerAround(member, () => endOtherPortalSessions(member, other))
    expect(outcome.status).toBe('rejected')
    expect(await db.passkey.count({ where: { userId: member.user.id } })).toBe(0)
  }, 30_000)

  it('an authenticator app confirmed by a session that "sign out everywhere" ended meanwhile is refused too', async () => {
    const { member, sessions: { firefox: sessionId, phone: other } } = await memberOfTheirOwn(newsroom, 's55p', { sessions: { firefox: 'Firefox', phone: 'Phone' } })
    const { secret } = await startTotpEnrolment(member, null, 'writer@example.test')
    // The confirmation waiting at the member's factor lock, past everything it checks before it,
    // behind "sign out everywhere else" from the other device (which takes that lock too since sec57).
    const [, outcome] = await inTurnAtFactorLock(member.user.id, () => endOtherPortalSessions(member, other), () => confirmTotpEnrolment(member, { id: sessionId, reauthenticatedAt: new Date() }, totpCode(secret, totpStep())))
    expect(outcome.status).toBe('rejected')
    expect(await db.totpFactor.count({ where: { userId: member.user.id, confirmedAt: { not: null } } })).toBe(0)
  }, 30_000)
})
