import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { passkeyRegistrationOptions, registerPasskey, removePasskey } from '../../lib/auth/passkeys.ts'
import { endOtherPortalSessions } from '../../lib/auth/portal-sessions.ts'
import { totpCode, totpStep } from '../../lib/auth/totp.ts'
import { confirmTotpEnrolment, removeTotp, startTotpEnrolment } from '../../lib/auth/two-factor.ts'
import { db } from '../../lib/db/client.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { memberOfTheirOwn } from '../support/member-of-their-own.ts'
import { inTurnAtFactorLock } from '../support/row-locks.ts'
import { SoftwarePasskey } from '../support/software-authenticator.ts'

// break55: adding a factor (a passkey, an app, new recovery codes) reads its session again under
// the member's factor lock, so a session ended meanwhile adds nothing. Removing one did not: a
// stolen session whose owner presses "sign out everywhere else" (or changes the password, or an
// admin resets) while its removal waits for the lock still takes the owner's app or passkey
// away, and with the last factor their recovery codes: the account is left on its password
// alone, by a session that had been ended.

const publicUrl = 'https://cms.newsroom.example'
type Actor = Parameters<typeof removeTotp>[0]
let newsroom: TestTenant

beforeAll(async () => {
  vi.stubEnv('NEXTAUTH_URL', publicUrl)
  vi.stubEnv('WEBHOOK_SECRET_KEY', 'break55-removal-from-ended-session-key')
  newsroom = await createTestTenant()
})
afterAll(() => vi.unstubAllEnvs())

async function newMember() {
  const { member, sessions } = await memberOfTheirOwn(newsroom, 'b55r', { sessions: { owner: 'Owner laptop', stolen: 'Thief' } })
  return { member, ...sessions }
}

/**
 * `removal` waiting at the member's factor lock behind the owner's "sign out everywhere else"
 * (which takes that lock too since sec57): the end commits before the removal reads its session.
 */
async function removeWhileOwnerSignsOutEverywhere(member: Actor, owner: string, removal: () => Promise<unknown>) {
  const [ended, removing] = await inTurnAtFactorLock(member.user.id, () => endOtherPortalSessions(member, owner), removal)
  expect(ended).toEqual({ status: 'fulfilled', value: 1 })
  return removing
}

describe('a factor removed by a session that ends meanwhile', () => {
  it('the authenticator app stays, with its recovery codes', async () => {
    const { member, owner, stolen } = await newMember()
    const { secret } = await startTotpEnrolment(member, null, 'owner@example.test')
    await confirmTotpEnrolment(member, { id: owner, reauthenticatedAt: new Date() }, totpCode(secret, totpStep()))
    const outcome = await removeWhileOwnerSignsOutEverywhere(member, owner, () => removeTotp(member, { id: stolen, reauthenticatedAt: new Date() }))
    expect(outcome.status).toBe('rejected')
    expect(await db.totpFactor.count({ where: { userId: member.user.id, confirmedAt: { not: null } } })).toBe(1)
    expect(await db.recoveryCode.count({ where: { userId: member.user.id, usedAt: null } })).toBe(10)
  }, 30_000)

  it('the passkey stays', async () => {
    const { member, owner, stolen } = await newMember()
    const sudo = { id: owner, reauthenticatedAt: new Date() }
    const key = new SoftwarePasskey({ origin: publicUrl, rpId: 'cms.newsroom.example' })
    const passkey = await registerPasskey(member, sudo, { name: 'Owner key', response: key.register(await passkeyRegistrationOptions(member, sudo)) })
    const outcome = await removeWhileOwnerSignsOutEverywhere(member, owner, () => removePasskey(member, { id: stolen, reauthenticatedAt: new Date() }, passkey.id))
    expect(outcome.status).toBe('rejected')
    expect(await db.passkey.count({ where: { userId: member.user.id } })).toBe(1)
    expect(await db.recoveryCode.count({ where: { userId: member.user.id, usedAt: null } })).toBe(10)
  }, 30_000)
})
