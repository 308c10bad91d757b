import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { db } from '../../lib/db/client.ts'
import { createCallerFactory } from '../../lib/trpc/init.ts'
import { portalContextFromSession } from '../../lib/trpc/context.ts'
import { appRouter } from '../../lib/trpc/routers/app-router.ts'
import { nextAuthBrowser } from '../support/next-auth-browser.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { SoftwarePasskey } from '../support/software-authenticator.ts'

// break56: a member's first passkey hashes ten recovery codes before the factor lock
// (prepareRecoveryCodes), for every registration that finds no live codes when it starts. A
// script with a software authenticator (attestation "none") asks for eight registration options
// and sends the eight registrations at once: all eight hash (80 scrypts) and one set is kept.
// Regenerating is bounded per member (7fe6b74); this path is not. Bounded here means a constant
// however many arrive: two sets hashed before the lock, and at most one more under it.

const { scryptCalls, countingScrypt } = await vi.hoisted(() => import('../support/scrypt-calls.ts'))
vi.mock('node:crypto', countingScrypt)

const createCaller = createCallerFactory(appRouter)
const publicUrl = 'https://cms.newsroom.example'
const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0'
let newsroom: TestTenant

beforeAll(async () => {
  vi.stubEnv('NEXTAUTH_URL', publicUrl)
  vi.stubEnv('WEBHOOK_SECRET_KEY', 'break56-passkeys-test-key')
  newsroom = await createTestTenant()
})
afterAll(() => vi.unstubAllEnvs())

describe('first passkeys registered in a burst', () => {
  it("eight at once: every passkey is added, ten live codes, at most three sets' worth of scrypt", async () => {
    const user = await db.user.findUniqueOrThrow({ where: { id: newsroom.users.writer.id } })
    const browser = nextAuthBrowser({ userAgent: firefox, address: '198.51.100.56' })
    expect(await browser.signIn(user.email, 'test-password')).toBe(true)
    const portal = async () => createCaller(portalContextFromSession(await browser.session(), browser.address))
    const keys = Array.from({ length: 8 }, () => new SoftwarePasskey({ origin: publicUrl, rpId: 'cms.newsroom.example' }))
    const options: Parameters<SoftwarePasskey['register']>[0][] = []
    for (let i = 0; i < keys.length; i++) options.push(await (await portal()).security.passkeyRegistrationOptions())
    const callers = await Promise.all(keys.map(() => portal()))
    scryptCalls.count = 0
    const outcomes = await Promise.allSettled(keys.map((key, i) => callers[i]!.security.registerPasskey({ name: `Key ${i}`, response: key.register(options[i]!) })))
    expect(outcomes.map((o) => (o.status === 'rejected' ? String((o.reason as Error).message).slice(0, 120) : 'ok'))).toEqual(keys.map(() => 'ok'))
    expect(await db.recoveryCode.count({ where: { userId: user.id, usedAt: null } })).toBe(10)
    expect(scryptCalls.count).toBeLessThanOrEqual(30)
  }, 120_000)
})
