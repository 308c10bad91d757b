import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { passkeyRegistrationOptions, passkeySignInOptions, registerPasskey } from '../../lib/auth/passkeys.ts'
import { totpCode, totpStep } from '../../lib/auth/totp.ts'
import { resetSecondFactors } from '../../lib/auth/two-factor.ts'
import { db } from '../../lib/db/client.ts'
import { tenantDb } from '../../lib/tenancy/tenant-db.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { appSecret, memberOfTheirOwn } from '../support/member-of-their-own.ts'
import { nextAuthBrowser } from '../support/next-auth-browser.ts'
import { duringUncommittedChange } from '../support/row-locks.ts'
import { SoftwarePasskey } from '../support/software-authenticator.ts'

// break58, what held: an admin's reset stamps credentialsChangedAt before it commits, as a
// password change does (break58-old-password-before-commit), so a sign-in with a reset factor that
// starts in that window passes the clock check. It still gets no session: the factor it uses is
// written when used (a passkey's counter, an app's last step), and that write waits for the reset's
// uncommitted delete of the same row, then finds the row gone (and a second step is judged from its
// password step, before the reset, in any case). Parked as there: the reset held
// before its commit by the audit table, which it writes last.

const publicUrl = 'https://cms.newsroom.example'
let newsroom: TestTenant
beforeAll(async () => {
  vi.stubEnv('NEXTAUTH_URL', publicUrl)
  newsroom = await createTestTenant()
})
afterAll(() => vi.unstubAllEnvs())

const admin = () => newsroom.actor('admin') as Parameters<typeof resetSecondFactors>[1]
const liveSessions = async (userId: string) => (await db.portalSession.findMany({ where: { userId, endedAt: null }, select: { userAgent: true } })).map((s) => s.userAgent)

async function duringUncommittedReset<T>(userId: string, during: () => Promise<T>) {
  const { changed: resetDone, during: signedIn } = await duringUncommittedChange(() => tenantDb(newsroom.tenant.id).$transaction((tx) => resetSecondFactors(tx, admin(), userId), { timeout: 20_000 }), during)
  return { resetDone, signedIn }
}

describe('a sign-in with a factor an admin is resetting, started after the reset\'s stamp and before its commit', () => {
  it('a passkey alone: refused, no session', async () => {
    const { member, id, sessions } = await memberOfTheirOwn(newsroom, 'b58k', { sessions: { owner: 'Owner laptop' } })
    const sudo = { id: sessions.owner, reauthenticatedAt: new Date() }
    const key = new SoftwarePasskey({ origin: publicUrl, rpId: 'cms.newsroom.example' })
    await registerPasskey(member, sudo, { name: 'Lost phone', response: key.register(await passkeyRegistrationOptions(member, sudo)) })
    const thief = nextAuthBrowser({ userAgent: 'Thief', address: '203.0.113.58' })
    const assertion = key.assert(await passkeySignInOptions())
    const { resetDone, signedIn } = await duringUncommittedReset(id, () => thief.signInWithPasskey(assertion))
    expect(resetDone).toMatchObject({ status: 'fulfilled', value: { endedSessions: 1 } })
    expect(signedIn).toMatchObject({ status: 'fulfilled', value: { ok: false } })
    expect((signedIn as PromiseFulfilledResult<{ error: string | null }>).value.error).toMatch(/^PasskeyRefused:/)
    expect(await liveSessions(id)).toEqual([])
  }, 60_000)

  it('the app\'s code as the second step: refused, no session', async () => {
    const { id, email } = await memberOfTheirOwn(newsroom, 'b58l', { sessions: { owner: 'Owner laptop' }, app: 'confirmed' })
    const thief = nextAuthBrowser({ userAgent: 'Thief', address: '203.0.113.58' })
    const first = await thief.step('credentials', { email, password: 'test-password' })
    const pendingToken = /^SecondFactorRequired:([^:]+):/.exec(first.error ?? '')?.[1]
    expect(pendingToken).toBeTruthy()
    const { resetDone, signedIn } = await duringUncommittedReset(id, () => thief.step('second-factor', { pendingToken: pendingToken!, code: totpCode(appSecret, totpStep()) }))
    expect(resetDone).toMatchObject({ status: 'fulfilled' })
    expect(signedIn).toMatchObject({ status: 'fulfilled', value: { signedIn: false } })
    expect(await liveSessions(id)).toEqual([])
  }, 60_000)
})
