import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { totpCode, totpStep } from '../../lib/auth/totp.ts'
import { db } from '../../lib/db/client.ts'
import { createCallerFactory } from '../../lib/trpc/init.ts'
import { portalContextFromSession } from '../../lib/trpc/context.ts'
import { appRouter } from '../../lib/trpc/routers/app-router.ts'
import { nextAuthBrowser } from '../support/next-auth-browser.ts'
import { createTestTenant } from '../support/fixtures.ts'

// break54: recovery codes "are gone with the last factor" (lib/auth/recovery-codes.ts). A member
// with two tabs presses "Remove authenticator app" in one and "Regenerate codes" in the other:
// regenerateRecoveryCodes counts the factors before its transaction takes any lock, then spends
// ~100 ms hashing ten codes with scrypt, then locks the users row and writes ten codes; removeTotp
// takes no lock on users, so it deletes the app and the codes in between, and the member is
// left with ten live recovery codes and no factor (and, later, a first passkey issues none:
// issueRecoveryCodesIfNone sees codes).
const createCaller = createCallerFactory(appRouter)
const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0'
const address = '198.51.100.54'

beforeAll(() => vi.stubEnv('WEBHOOK_SECRET_KEY', 'break54-two-factor-test-key'))
afterAll(() => vi.unstubAllEnvs())

async function enrolled() {
  const fresh = await createTestTenant()
  const user = fresh.users.writer
  const browser = nextAuthBrowser({ userAgent: firefox, address })
  expect(await browser.signIn(user.email, 'test-password')).toBe(true)
  const portal = async () => createCaller(portalContextFromSession(await browser.session(), address))
  const { secret } = await (await portal()).security.startTotp()
  await (await portal()).security.confirmTotp({ code: totpCode(secret, totpStep()) })
  return { user, portal }
}

describe('two tabs: remove the authenticator app, regenerate recovery codes', () => {
  it('never leaves live recovery codes without a factor', async () => {
    const leftovers: string[] = []
    for (let round = 0; round < 3; round++) {
      const { user, portal } = await enrolled()
      const [tabA, tabB] = [await portal(), await portal()]
      await Promise.allSettled([tabA.security.regenerateRecoveryCodes(), tabB.security.removeTotp()])
      const factors = (await db.totpFactor.count({ where: { userId: user.id } })) + (await db.passkey.count({ where: { userId: user.id } }))
      const codes = await db.recoveryCode.count({ where: { userId: user.id, usedAt: null } })
      if (factors === 0 && codes > 0) leftovers.push(`round ${round}: no factor, ${codes} live codes`)
    }
    expect(leftovers).toEqual([])
  }, 60_000)
})
