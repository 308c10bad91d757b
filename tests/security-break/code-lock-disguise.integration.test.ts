import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { resetRateLimitersForTests } from '../../lib/api/rate-limit.ts'
import { generateTotpSecret, totpCode, totpStep } from '../../lib/auth/totp.ts'
import { db } from '../../lib/db/client.ts'
import { encryptSecret } from '../../lib/security/secret-box.ts'
import { nextAuthBrowser } from '../support/next-auth-browser.ts'
import { createTestTenant } from '../support/fixtures.ts'

// Someone holding a member's password guesses authenticator codes. Wrong codes lock the second
// step everywhere (sign-in-throttle.ts): only a recovery code (50 random bits) is still taken,
// from addresses that have not failed. Which of the two a code is, is decided on the code as
// typed, but the code checked is its first 40 characters: a six-digit code padded past 40
// characters is counted as a recovery code and checked as an authenticator code.

const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0'
const pendingOf = (error: string | null) => error!.slice('SecondFactorRequired:'.length).split(':')[0]!

beforeAll(() => {
  vi.stubEnv('WEBHOOK_SECRET_KEY', 'code-lock-disguise-test-key')
  vi.stubEnv('RATE_LIMIT_SIGN_IN_PER_ACCOUNT', '4')
  vi.stubEnv('RATE_LIMIT_KEY_PREFIX', `code-lock-disguise:${randomUUID()}`)
})
beforeEach(() => resetRateLimitersForTests())
afterAll(() => {
  vi.unstubAllEnvs()
  resetRateLimitersForTests()
})

describe('the authenticator codes\' lock', () => {
  it('holds for a code padded to look like a recovery code', async () => {
    const newsroom = await createTestTenant()
    const editor = newsroom.users.editor
    const secret = generateTotpSecret()
    await db.totpFactor.create({ data: { userId: editor.id, tenantId: newsroom.tenant.id, secretEncrypted: encryptSecret(secret), confirmedAt: new Date() } })
    // Four wrong codes from two addresses: the codes are locked everywhere.
    for (let i = 0; i < 2; i++) {
      const browser = nextAuthBrowser({ userAgent: firefox, address: `203.0.113.${30 + i}` })
      const pendingToken = pendingOf((await browser.step('credentials', { email: editor.email, password: 'test-password' })).error)
      for (let j = 0; j < 2; j++) expect((await browser.step('second-factor', { pendingToken, code: totpCode(secret, totpStep() + 7 + j) })).error).toMatch(/^SecondFactorWrong:/)
    }
    const fresh = nextAuthBrowser({ userAgent: firefox, address: '203.0.113.40' })
    const pendingToken = pendingOf((await fresh.step('credentials', { email: editor.email, password: 'test-password' })).error)
    // The plain code is refused, as it should be...
    expect((await fresh.step('second-factor', { pendingToken, code: totpCode(secret, totpStep()) })).error).toMatch(/^TooManySignInAttempts:\d+$/)
    // ...and so must the same code with 34 spaces and a letter after it (its first 40 characters are the code).
    const disguised = `${totpCode(secret, totpStep())}${' '.repeat(34)}x`
    expect(await fresh.step('second-factor', { pendingToken, code: disguised })).toMatchObject({ signedIn: false, error: expect.stringMatching(/^TooManySignInAttempts:\d+$/) })
  })
})
