import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { setupBackstopMs } from '../support/time-limits.ts'
import { startMigratedEmbeddedDatabase } from '../support/embedded-database.ts'

// break58: the locks every change that ends a member's sessions takes (the member's factor lock,
// first, checked with pg_current_xact_id_if_assigned()) and the sign-ins that start a session
// under it must work on the embedded store too (PGlite, `npm run dev` without DATABASE_URL),
// where one PGlite session serves every connection and a transaction keeps it to itself.

let embedded: Awaited<ReturnType<typeof startMigratedEmbeddedDatabase>>
let lib: {
  fixtures: typeof import('../support/fixtures.ts')
  own: typeof import('../support/member-of-their-own.ts')
  browser: typeof import('../support/next-auth-browser.ts')
  sessions: typeof import('../../lib/auth/portal-sessions.ts')
  password: typeof import('../../lib/auth/change-password.ts')
  users: typeof import('../../lib/users/manage-users.ts')
  twoFactor: typeof import('../../lib/auth/two-factor.ts')
  tenantDb: typeof import('../../lib/tenancy/tenant-db.ts')
  db: typeof import('../../lib/db/client.ts')
}

beforeAll(async () => {
  embedded = await startMigratedEmbeddedDatabase()
  // Before any module reads it: this file's modules talk to the embedded store.
  process.env.DATABASE_URL = embedded.url
  vi.stubEnv('NEXTAUTH_URL', 'https://cms.newsroom.example')
  lib = {
    fixtures: await import('../support/fixtures.ts'),
    own: await import('../support/member-of-their-own.ts'),
    browser: await import('../support/next-auth-browser.ts'),
    sessions: await import('../../lib/auth/portal-sessions.ts'),
    password: await import('../../lib/auth/change-password.ts'),
    users: await import('../../lib/users/manage-users.ts'),
    twoFactor: await import('../../lib/auth/two-factor.ts'),
    tenantDb: await import('../../lib/tenancy/tenant-db.ts'),
    db: await import('../../lib/db/client.ts'),
  }
}, setupBackstopMs)

afterAll(async () => {
  vi.unstubAllEnvs()
  await lib?.db.db.$disconnect()
  await embedded?.stop()
})

describe('ending a member\'s sessions on the embedded store', () => {
  it('sign-ins, a password change, "sign out everywhere else", a reset and a deactivation, at once: each answers, none with an internal error', async () => {
    // Through the app's own client: the embedded store, not the file's PostgreSQL database.
    const [store] = await lib.db.db.$queryRaw<{ version: string }[]>`SELECT version()`
    expect(store?.version).toContain('PGlite')
    const newsroom = await lib.fixtures.createTestTenant()
    const { member, id, email, sessions } = await lib.own.memberOfTheirOwn(newsroom, 'b58e', { sessions: { owner: 'Owner laptop', phone: 'Phone' } })
    const sign = (n: number) => lib.browser.nextAuthBrowser({ userAgent: `Tab ${n}`, address: '198.51.100.20' }).signIn(email, 'test-password')
    const outcomes = await Promise.allSettled([
      sign(1),
      sign(2),
      lib.sessions.endOtherPortalSessions(member, sessions.phone),
      sign(3),
      lib.password.changeOwnPassword(member, { id: sessions.owner, reauthenticatedAt: new Date() }, { currentPassword: 'test-password', newPassword: 'embedded-new-password' }, '198.51.100.10'),
      lib.tenantDb.tenantDb(newsroom.tenant.id).$transaction((tx) => lib.twoFactor.resetSecondFactors(tx, newsroom.actor('admin') as Parameters<typeof lib.twoFactor.resetSecondFactors>[1], id), { timeout: 20_000 }),
      sign(4),
    ])
    const failures = outcomes.filter((o) => o.status === 'rejected').map((o) => String((o as PromiseRejectedResult).reason))
    // Refusals a person is told about (an ended session: sign in again) are fine; nothing internal.
    for (const failure of failures) expect(failure).toMatch(/Sign in again/)
    // Whatever the order, every session that is live started after the last change that ended sessions.
    const user = await lib.db.db.user.findUniqueOrThrow({ where: { id }, select: { credentialsChangedAt: true } })
    const live = await lib.db.db.portalSession.findMany({ where: { userId: id, endedAt: null }, select: { createdAt: true } })
    for (const session of live) expect(session.createdAt.getTime()).toBeGreaterThanOrEqual(user.credentialsChangedAt!.getTime())
    await expect(lib.users.deactivateUser(newsroom.actor('admin'), { userId: id })).resolves.toMatchObject({ active: false })
    expect(await lib.db.db.portalSession.count({ where: { userId: id, endedAt: null } })).toBe(0)
    expect(await sign(5)).toBe(false)
  }, 120_000)
})
