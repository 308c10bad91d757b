import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { resetRateLimitersForTests } from '../../lib/api/rate-limit.ts'
import { replaceRecoveryCodes } from '../../lib/auth/recovery-codes.ts'
import { generateTotpSecret, totpCode, totpStep } from '../../lib/auth/totp.ts'
import { db } from '../../lib/db/client.ts'
import { createId } from '../../lib/ids.ts'
import { encryptSecret } from '../../lib/security/secret-box.ts'
import { nextAuthBrowser } from '../support/next-auth-browser.ts'
import { createTestTenant } from '../support/fixtures.ts'

// Someone who holds only a member's password can send wrong authenticator codes from a few
// addresses; the developer chose to lock the code step everywhere then (many addresses could
// otherwise each guess a few of the million codes). That lock also refused the member's
// recovery codes, so the member was locked out everywhere, and every 15 minutes again, while
// the lock's own e-mail told them to sign in and change their password. A recovery code has 50
// random bits: guessing one is hopeless at any rate, so it is counted per address and account
// only, and the member at their desk gets in with one while the code lock lasts.

const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0'
const browserAt = (address: string) => nextAuthBrowser({ userAgent: firefox, address })

beforeAll(() => {
  vi.stubEnv('WEBHOOK_SECRET_KEY', 'code-lock-weapon-test-key')
  vi.stubEnv('RATE_LIMIT_SIGN_IN_PER_ACCOUNT', '4')
  vi.stubEnv('RATE_LIMIT_KEY_PREFIX', `code-lock-weapon:${createId('req')}`)
})
beforeEach(() => resetRateLimitersForTests())
afterAll(() => {
  vi.unstubAllEnvs()
  resetRateLimitersForTests()
})

describe('wrong authenticator codes from someone holding the password', () => {
  it('lock the authenticator codes everywhere, but the member at their own desk still signs in with a recovery code', async () => {
    const newsroom = await createTestTenant()
    const editor = newsroom.users.editor
    const secret = generateTotpSecret()
    await db.totpFactor.create({ data: { userId: editor.id, tenantId: newsroom.tenant.id, secretEncrypted: encryptSecret(secret), confirmedAt: new Date() } })
    const [recoveryCode] = await db.$transaction((tx) => replaceRecoveryCodes(tx, newsroom.actor('editor') as never))
    const wrong = totpCode(secret, totpStep() + 7)
    const pendingAt = async (browser: ReturnType<typeof browserAt>) =>
      (await browser.step('credentials', { email: editor.email, password: 'test-password' })).error!.slice('SecondFactorRequired:'.length).split(':')[0]!
    for (let i = 0; i < 3; i++) {
      const attacker = browserAt(`203.0.113.${210 + i}`)
      const pendingToken = await pendingAt(attacker)
      await attacker.step('second-factor', { pendingToken, code: wrong })
      await attacker.step('second-factor', { pendingToken, code: wrong })
    }
    const desk = browserAt('198.51.100.90')
    // The authenticator's codes are locked everywhere (the developer's choice, kept)...
    expect((await desk.step('second-factor', { pendingToken: await pendingAt(desk), code: totpCode(secret, totpStep()) })).error).toMatch(/^TooManySignInAttempts:\d+$/)
    // ...but a recovery code, from an address that did not fail, signs the member in.
    expect(await desk.step('second-factor', { pendingToken: await pendingAt(desk), code: recoveryCode! })).toEqual({ error: null, signedIn: true })
    // Nine password checks (argon2) on a loaded machine: 108 s were measured at load 22.
  }, 180_000)

  it('recovery codes guessed from an address are still refused there after its budget', async () => {
    const newsroom = await createTestTenant()
    const editor = newsroom.users.editor
    await db.totpFactor.create({ data: { userId: editor.id, tenantId: newsroom.tenant.id, secretEncrypted: encryptSecret(generateTotpSecret()), confirmedAt: new Date() } })
    await db.$transaction((tx) => replaceRecoveryCodes(tx, newsroom.actor('editor') as never))
    const attacker = browserAt('203.0.113.220')
    const errors: (string | null)[] = []
    for (let i = 0; i < 2; i++) {
      const pendingToken = (await attacker.step('credentials', { email: editor.email, password: 'test-password' })).error!.slice('SecondFactorRequired:'.length).split(':')[0]!
      for (let j = 0; j < 3; j++) errors.push((await attacker.step('second-factor', { pendingToken, code: `aaaaa-bbbb${i}${j}` })).error)
    }
    expect(errors.at(-1)).toMatch(/^TooManySignInAttempts:\d+$/)
  })
})
