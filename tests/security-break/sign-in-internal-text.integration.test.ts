import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { resetRateLimitersForTests } from '../../lib/api/rate-limit.ts'
import { db } from '../../lib/db/client.ts'
import { createId } from '../../lib/ids.ts'
import { encryptSecret } from '../../lib/security/secret-box.ts'
import { generateTotpSecret } from '../../lib/auth/totp.ts'
import { withAuthorizeFailures } from '../../lib/auth/authorize-failures.ts'
import { internalTextIn } from '../support/internal-text.ts'
import { nextAuthBrowser } from '../support/next-auth-browser.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// A hostile client against the sign-in doors (issue 46: "no internal text ever reaches a
// client"). next-auth hands whatever an authorize() throws to the browser as the `error` of the
// answer's URL, so a Prisma error there (a NUL byte in the e-mail, an unreadable stored secret)
// reached the sign-in form word for word, with the source path and the SQL state.

let newsroom: TestTenant
const browser = () => nextAuthBrowser({ userAgent: 'Mozilla/5.0 hostile', address: '203.0.113.9' })

beforeAll(async () => {
  vi.stubEnv('WEBHOOK_SECRET_KEY', 'sign-in-internal-text-key')
  vi.stubEnv('RATE_LIMIT_KEY_PREFIX', `sign-in-internal-text:${createId('req')}`)
  resetRateLimitersForTests()
  newsroom = await createTestTenant()
})

afterAll(() => {
  vi.unstubAllEnvs()
  resetRateLimitersForTests()
})

describe('what the sign-in form is told', () => {
  it('an e-mail with a NUL byte is an ordinary refusal, not Prisma text', async () => {
    const answer = await browser().step('credentials', { email: 'someone\u0000@example.com', password: 'anything' })
    expect(answer.signedIn).toBe(false)
    expect(internalTextIn(answer.error ?? ''), answer.error ?? '').toBeNull()
    expect(answer.error).toBe('CredentialsSignin')
  })

  it('a stored second-factor secret that cannot be decrypted tells the member nothing internal', async () => {
    const member = newsroom.users.editor
    // Encrypted under another key: what a rotated WEBHOOK_SECRET_KEY leaves behind.
    vi.stubEnv('WEBHOOK_SECRET_KEY', 'a-key-this-server-no-longer-has')
    const secretEncrypted = encryptSecret(generateTotpSecret())
    vi.stubEnv('WEBHOOK_SECRET_KEY', 'sign-in-internal-text-key')
    await db.totpFactor.create({ data: { userId: member.id, tenantId: newsroom.tenant.id, secretEncrypted, confirmedAt: new Date() } })
    const desk = browser()
    const first = await desk.step('credentials', { email: member.email, password: 'test-password' })
    expect(first.error).toMatch(/^SecondFactorRequired:/)
    const pendingToken = first.error!.split(':')[1]!
    const answer = await desk.step('second-factor', { pendingToken, code: '123456' })
    expect(answer.signedIn).toBe(false)
    expect(internalTextIn(answer.error ?? ''), answer.error ?? '').toBeNull()
    // Deliberately told as a wrong code (two-factor.ts: recovery codes still work), and logged.
    expect(answer.error).toMatch(/^SecondFactorWrong:/)
  })

  it("any other failure inside a sign-in step is the generic failure with a request id; the app's coded refusals pass", async () => {
    const failing = withAuthorizeFailures('test', ['TooManySignInAttempts'], async (credentials: { email: string } | undefined) => {
      if (credentials?.email === 'coded') throw new Error('TooManySignInAttempts:60')
      // A real Prisma failure: a malformed raw query.
      await db.$queryRawUnsafe('SELEC 1')
      return null
    })
    const message = await failing({ email: 'x' }, {}).then(() => '', (error: Error) => error.message)
    expect(internalTextIn(message), message).toBeNull()
    expect(message).toMatch(/^InternalError:req_/)
    expect(await failing({ email: 'coded' }, {}).then(() => '', (error: Error) => error.message)).toBe('TooManySignInAttempts:60')
  })
})
