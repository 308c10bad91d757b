import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { endOtherPortalSessions } from '../../lib/auth/portal-sessions.ts'
import { saveSsoConnection, saveSsoConnectionSchema } from '../../lib/auth/sso-connection.ts'
import { db } from '../../lib/db/client.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { memberOfTheirOwn } from '../support/member-of-their-own.ts'
import { startTestIdentityProvider, type TestIdentityProvider } from '../support/oidc-test-provider.ts'
import { inTurnAtFactorLock } from '../support/row-locks.ts'
import { portalOrigin, ssoBrowser } from '../support/sso-browser.ts'

// sec58: a sign-in through the newsroom's identity provider passed no provedSince, so it started
// its session whatever ended the member's sessions while its answer was being checked. Here the
// owner's "sign out everywhere else" is queued at the member's factor lock first and the SSO
// sign-in's callback second (inTurnAtFactorLock): the end commits, then the sign-in, whose
// callback arrived before the end, must start no session. (Before the fix the sign-in took no
// lock at all and never queued.)

let newsroom: TestTenant
let idp: TestIdentityProvider
const clientSecret = 'portal-client-secret-0123456789'

beforeAll(async () => {
  vi.stubEnv('WEBHOOK_SECRET_KEY', 'sec58-sso-sign-in-across-sign-out-key')
  newsroom = await createTestTenant()
  idp = await startTestIdentityProvider([{ clientId: 'newsroom-portal', clientSecret, redirectUris: [`${portalOrigin}/api/auth/callback/sso-${newsroom.tenant.slug}`] }])
  await saveSsoConnection(newsroom.actor('admin'), { id: 'ses_settings', reauthenticatedAt: new Date() }, saveSsoConnectionSchema.parse({ displayName: 'Example IdP', issuer: idp.issuer, clientId: 'newsroom-portal', clientSecret }))
})

afterAll(async () => {
  await idp?.close()
  vi.unstubAllEnvs()
})

describe('an SSO sign-in that straddles "sign out everywhere else"', () => {
  it('starts no session: the sign-in page says why', async () => {
    const { member, id, email, sessions } = await memberOfTheirOwn(newsroom, 's58s', { sessions: { owner: 'Owner laptop' } })
    idp.accounts.set('member', { email, email_verified: true, name: 'Member' })
    const other = ssoBrowser({ userAgent: 'Other browser', address: '203.0.113.58' })
    const [end, signIn] = await inTurnAtFactorLock(id, () => endOtherPortalSessions(member, sessions.owner), () => other.signIn(newsroom.tenant.slug, { login: 'member' }))
    expect(end).toMatchObject({ status: 'fulfilled', value: 0 })
    expect(await db.portalSession.findMany({ where: { userId: id, endedAt: null }, select: { userAgent: true } })).toEqual([{ userAgent: 'Owner laptop' }])
    expect(signIn).toMatchObject({ status: 'fulfilled', value: expect.stringContaining('error=SignInOvertaken') })
    expect(await other.session()).toBeNull()
  }, 60_000)
})
