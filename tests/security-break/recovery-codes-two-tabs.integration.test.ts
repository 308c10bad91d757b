import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { totpCode, totpStep } from '../../lib/auth/totp.ts'
import { db } from '../../lib/db/client.ts'
import { createCallerFactory } from '../../lib/trpc/init.ts'
import { portalContextFromSession } from '../../lib/trpc/context.ts'
import { appRouter } from '../../lib/trpc/routers/app-router.ts'
import { nextAuthBrowser } from '../support/next-auth-browser.ts'
import { createTestTenant } from '../support/fixtures.ts'

// Recovery codes as a hurried member meets them with two tabs open (break53, break54): codes
// are scrypt hashes, and a member's factors and codes change under one lock on the member.
const createCaller = createCallerFactory(appRouter)
const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0'
const address = '198.51.100.53'

beforeAll(() => vi.stubEnv('WEBHOOK_SECRET_KEY', 'break53-two-factor-test-key'))
afterAll(() => vi.unstubAllEnvs())

async function enrolled() {
  const fresh = await createTestTenant()
  const user = fresh.users.writer
  const browser = nextAuthBrowser({ userAgent: firefox, address })
  expect(await browser.signIn(user.email, 'test-password')).toBe(true)
  const portal = async () => createCaller(portalContextFromSession(await browser.session(), address))
  const { secret } = await (await portal()).security.startTotp()
  const { recoveryCodes } = await (await portal()).security.confirmTotp({ code: totpCode(secret, totpStep()) })
  return { fresh, user, portal, recoveryCodes }
}

async function passwordStep(email: string) {
  const browser = nextAuthBrowser({ userAgent: firefox, address })
  const first = await browser.step('credentials', { email, password: 'test-password' })
  expect(first.error).toMatch(/^SecondFactorRequired:/)
  return { browser, pendingToken: first.error!.slice('SecondFactorRequired:'.length).split(':')[0]! }
}

describe('recovery codes, two tabs', () => {
  it('two tabs redeeming the same recovery code at once: exactly one signs in', async () => {
    const { user, recoveryCodes } = await enrolled()
    const [a, b] = await Promise.all([passwordStep(user.email), passwordStep(user.email)])
    const results = await Promise.all([
      a.browser.step('second-factor', { pendingToken: a.pendingToken, code: recoveryCodes[0]! }),
      b.browser.step('second-factor', { pendingToken: b.pendingToken, code: recoveryCodes[0]! }),
    ])
    expect(results.map((r) => r.signedIn).filter(Boolean)).toHaveLength(1)
    expect(await db.recoveryCode.count({ where: { userId: user.id, usedAt: null } })).toBe(9)
  })

  it('regenerating codes in two tabs at once leaves ten live codes, the last shown set', async () => {
    const { user, portal } = await enrolled()
    // Both tabs are in sudo mode (just signed in) and press "Regenerate" together.
    const [first, second] = await Promise.all([(await portal()).security.regenerateRecoveryCodes(), (await portal()).security.regenerateRecoveryCodes()])
    expect(first.recoveryCodes).toHaveLength(10)
    expect(second.recoveryCodes).toHaveLength(10)
    // Whatever the member keeps (either tab's sheet), the other sheet must be dead: one set of ten.
    expect(await db.recoveryCode.count({ where: { userId: user.id, usedAt: null } })).toBe(10)
  })

  // Codes "are gone with the last factor": regenerating counted the factors before any lock
  // while the other tab removed the app and its codes, leaving ten live codes and no factor (break54).
  it('never leaves live recovery codes without a factor', async () => {
    const leftovers: string[] = []
    for (let round = 0; round < 3; round++) {
      const { user, portal } = await enrolled()
      const [tabA, tabB] = [await portal(), await portal()]
      const outcomes = await Promise.allSettled([tabA.security.regenerateRecoveryCodes(), tabB.security.removeTotp()])
      // The removal always goes through (sudo mode, just signed in): the race is real, not both refused.
      expect(outcomes[1].status).toBe('fulfilled')
      const factors = (await db.totpFactor.count({ where: { userId: user.id } })) + (await db.passkey.count({ where: { userId: user.id } }))
      const codes = await db.recoveryCode.count({ where: { userId: user.id, usedAt: null } })
      if (factors === 0 && codes > 0) leftovers.push(`round ${round}: no factor, ${codes} live codes`)
    }
    expect(leftovers).toEqual([])
  }, 60_000)
})
