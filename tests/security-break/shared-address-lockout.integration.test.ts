import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { resetRateLimitersForTests } from '../../lib/api/rate-limit.ts'
import { knownBrowserAccountSelect, knownBrowserCookie, rememberedBrowser } from '../../lib/auth/known-browser.ts'
import { generateTotpSecret, totpCode, totpStep } from '../../lib/auth/totp.ts'
import { db } from '../../lib/db/client.ts'
import { encryptSecret } from '../../lib/security/secret-box.ts'
import { nextAuthBrowser } from '../support/next-auth-browser.ts'
import { createTestTenant } from '../support/fixtures.ts'

// The newsroom's office leaves through one address (NAT, the guest Wi-Fi on the same line, a
// corporate proxy). Anyone there (a visitor, a contractor, a script on one infected laptop) fails
// 50 sign-ins to made-up accounts in a minute: the per-address budget (RATE_LIMIT_SIGN_IN_PER_ADDRESS)
// then refuses every sign-in from the office for 15 minutes, the admin's included, with the
// right password and second factor, from the browser they use every day. Issue 46 asks that
// "a correct password plus the second factor ... still signs in (or meets an extra challenge,
// never a flat refusal)"; the known-browser note exists for exactly this, and is not consulted.

const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0'
const office = '198.51.100.200'

beforeAll(() => {
  vi.stubEnv('WEBHOOK_SECRET_KEY', 'shared-address-test-key')
  vi.stubEnv('RATE_LIMIT_SIGN_IN_PER_ADDRESS', '6')
  vi.stubEnv('RATE_LIMIT_KEY_PREFIX', `shared-address:${randomUUID()}`)
})
beforeEach(() => resetRateLimitersForTests())
afterAll(() => {
  vi.unstubAllEnvs()
  resetRateLimitersForTests()
})

describe('a shared office address', () => {
  it('failures to made-up accounts from it do not refuse an admin with a second factor, on the browser they signed in with before', async () => {
    const newsroom = await createTestTenant()
    const admin = newsroom.users.admin
    const secret = generateTotpSecret()
    await db.totpFactor.create({ data: { userId: admin.id, tenantId: newsroom.tenant.id, secretEncrypted: encryptSecret(secret), confirmedAt: new Date() } })
    const account = await db.user.findUniqueOrThrow({ where: { id: admin.id }, select: knownBrowserAccountSelect })
    for (let i = 0; i < 6; i++) {
      await nextAuthBrowser({ userAgent: firefox, address: office }).step('credentials', { email: `nobody-${i}-${randomUUID()}@example.com`, password: 'whatever' })
    }
    const desk = nextAuthBrowser({ userAgent: firefox, address: office, cookies: { [knownBrowserCookie]: rememberedBrowser(undefined, account).value } })
    const first = await desk.step('credentials', { email: admin.email, password: 'test-password' })
    expect(first.error).toMatch(/^SecondFactorRequired:/)
    const pendingToken = first.error!.slice('SecondFactorRequired:'.length).split(':')[0]!
    expect(await desk.step('second-factor', { pendingToken, code: totpCode(secret, totpStep()) })).toEqual({ error: null, signedIn: true })
    // The address's budget still holds for a browser without the note, and for the note's own few failures.
    expect((await nextAuthBrowser({ userAgent: firefox, address: office }).step('credentials', { email: admin.email, password: 'test-password' })).error).toMatch(/^TooManySignInAttempts:\d+$/)
    for (let i = 0; i < 3; i++) expect((await desk.step('credentials', { email: admin.email, password: `guess ${i}` })).error).toBe('CredentialsSignin')
    expect((await desk.step('credentials', { email: admin.email, password: 'guess 4' })).error).toMatch(/^TooManySignInAttempts:\d+$/)
  })
})
