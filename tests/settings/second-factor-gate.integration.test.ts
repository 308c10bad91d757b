import { NextRequest } from 'next/server'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { secondFactorOverdue } from '../../lib/auth/second-factor-gate.ts'
import { totpCode, totpStep } from '../../lib/auth/totp.ts'
import { db } from '../../lib/db/client.ts'
import { createCallerFactory } from '../../lib/trpc/init.ts'
import { portalContextFromSession } from '../../lib/trpc/context.ts'
import { appRouter } from '../../lib/trpc/routers/app-router.ts'
import { nextAuthBrowser, nextAuthBrowserSecret } from '../support/next-auth-browser.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// What proxy.ts asks of every portal page request: is this member past the newsroom's
// two-factor grace without a factor? Real session cookies (next-auth's handler), real PostgreSQL.

const createCaller = createCallerFactory(appRouter)
const address = '198.51.100.41'
const day = 86_400_000
let newsroom: TestTenant

beforeAll(async () => {
  vi.stubEnv('NEXTAUTH_SECRET', nextAuthBrowserSecret)
  vi.stubEnv('WEBHOOK_SECRET_KEY', 'second-factor-gate-test-key')
  newsroom = await createTestTenant()
  // Everyone covered, the grace of three days long over, the members long since created.
  await db.tenant.update({ where: { id: newsroom.tenant.id }, data: { twoFactorPolicy: 'all', twoFactorGraceDays: 3, twoFactorPolicyChangedAt: new Date(Date.now() - 4 * day) } })
  await db.user.updateMany({ where: { tenantId: newsroom.tenant.id }, data: { createdAt: new Date(Date.now() - 30 * day) } })
})

afterAll(() => vi.unstubAllEnvs())

const pageRequest = (cookie: string, path = '/articles') => new NextRequest(`http://localhost:3000${path}`, { headers: cookie ? { cookie } : {} })

async function signedIn(email: string) {
  const browser = nextAuthBrowser({ userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0', address })
  expect(await browser.signIn(email, 'test-password')).toBe(true)
  return browser
}

describe('the second-factor gate', () => {
  it('stops a covered member past the grace, and lets them through once they set a factor up, though their cookie still names the old deadline', async () => {
    const browser = await signedIn(newsroom.users.writer.email)
    const cookieAtSignIn = browser.cookieHeader()
    expect(await secondFactorOverdue(pageRequest(cookieAtSignIn))).toBe(true)

    const portal = async () => createCaller(portalContextFromSession(await browser.session(), address))
    const { secret } = await (await portal()).security.startTotp()
    await (await portal()).security.confirmTotp({ code: totpCode(secret, totpStep()) })
    expect(await secondFactorOverdue(pageRequest(cookieAtSignIn))).toBe(false)
  })

  it('lets through a member still within the grace, a visitor without a session, an ended session and a forged cookie', async () => {
    const browser = await signedIn(newsroom.users.editor.email)
    const cookie = browser.cookieHeader()
    expect(await secondFactorOverdue(pageRequest(cookie), new Date(Date.now() - 10 * day))).toBe(false)
    expect(await secondFactorOverdue(pageRequest(''))).toBe(false)
    expect(await secondFactorOverdue(pageRequest('next-auth.session-token=not-a-sealed-token'))).toBe(false)
    expect(await secondFactorOverdue(pageRequest(cookie))).toBe(true)
    await browser.signOut()
    expect(await secondFactorOverdue(pageRequest(cookie))).toBe(false)
  })
})
