import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { db } from '../../lib/db/client.ts'
import type { Scope } from '../../lib/tokens/scopes.ts'
import { createCallerFactory } from '../../lib/trpc/init.ts'
import { portalContextFromSession } from '../../lib/trpc/context.ts'
import { appRouter } from '../../lib/trpc/routers/app-router.ts'
import { nextAuthBrowser } from '../support/next-auth-browser.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// Portal sessions as a member sees them (Settings → Security) and as next-auth enforces them:
// each sign-in is a row, ending the row ends the session at its next request, and dangerous acts
// ask for the password again once the last proof is older than 10 minutes.

const createCaller = createCallerFactory(appRouter)
const unbounded = { expiry: 'never' as const, allowedAddresses: [] as string[] }
const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0'
const safari = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15'
let newsroom: TestTenant

beforeAll(async () => {
  vi.stubEnv('WEBHOOK_ALLOW_PRIVATE_URLS', 'true')
  vi.stubEnv('WEBHOOK_SECRET_KEY', 'sessions-and-sudo-test-key')
  newsroom = await createTestTenant()
})

afterAll(() => vi.unstubAllEnvs())

/** A browser signed in as the role (the fixtures' password), with the portal's procedures as that browser calls them. */
async function signedIn(role: 'admin' | 'editor' | 'writer', userAgent = firefox, address = '198.51.100.10') {
  const browser = nextAuthBrowser({ userAgent, address })
  expect(await browser.signIn(newsroom.users[role].email, 'test-password')).toBe(true)
  const portal = async () => createCaller(portalContextFromSession(await browser.session(), address))
  const sessionId = (await browser.session())!.sessionId
  return { browser, portal, sessionId }
}

/** As if the session's last sign-in or confirmation were this many minutes ago. */
async function age(sessionId: string, minutes: number) {
  await db.portalSession.update({ where: { id: sessionId }, data: { reauthenticatedAt: new Date(Date.now() - minutes * 60_000) } })
}

describe('sessions', () => {
  it('lists where the member is signed in, and signing one out ends it on its next request', async () => {
    const laptop = await signedIn('editor', firefox, '198.51.100.10')
    // Seen through a dual-stack socket; listed as people write the address.
    const phone = await signedIn('editor', safari, '::ffff:203.0.113.20')
    const sessions = await (await laptop.portal()).security.sessions()
    expect(sessions.map((session) => [session.device, session.clientAddress, session.current])).toEqual([
      ['Firefox on Linux', '198.51.100.10', true],
      ['Safari on macOS', '203.0.113.20', false],
    ])
    expect(sessions[1]).toMatchObject({ id: phone.sessionId, createdAt: expect.any(String), lastSeenAt: expect.any(String) })

    await (await laptop.portal()).security.endSession({ sessionId: phone.sessionId })
    expect(await phone.browser.session()).toBeNull()
    // Its cookie is gone too: signing in again is the way back.
    expect(await phone.browser.session()).toBeNull()
    expect((await laptop.browser.session())?.user.email).toBe(newsroom.users.editor.email)
    expect((await (await laptop.portal()).security.sessions()).map((session) => session.id)).toEqual([laptop.sessionId])
    expect(await db.auditEntry.findFirst({ where: { tenantId: newsroom.tenant.id, action: 'user.sessions_ended', actorId: newsroom.users.editor.id } })).toMatchObject({ metadata: expect.objectContaining({ count: 1 }) })
  })

  it('"sign out all others" keeps only the session that asked, and a member cannot end another member\'s session', async () => {
    const [one, two, three] = [await signedIn('writer'), await signedIn('writer', safari), await signedIn('writer')]
    const admin = await signedIn('admin')
    await expect((await admin.portal()).security.endSession({ sessionId: two.sessionId })).rejects.toMatchObject({ code: 'NOT_FOUND' })
    expect(await two.browser.session()).not.toBeNull()
    expect(await (await one.portal()).security.endOtherSessions()).toEqual({ ended: 2 })
    expect(await two.browser.session()).toBeNull()
    expect(await three.browser.session()).toBeNull()
    expect(await one.browser.session()).not.toBeNull()
    expect(await admin.browser.session()).not.toBeNull()
  })

  it('signing out ends the session record, not only the cookie', async () => {
    const { browser, sessionId } = await signedIn('writer')
    await browser.signOut()
    expect(await db.portalSession.findUnique({ where: { id: sessionId } })).toMatchObject({ endedReason: 'signed_out', endedAt: expect.any(Date) })
  })

  it('records last seen at most once a minute', async () => {
    const { browser, sessionId } = await signedIn('writer')
    const twoMinutesAgo = new Date(Date.now() - 120_000)
    await db.portalSession.update({ where: { id: sessionId }, data: { lastSeenAt: twoMinutesAgo } })
    await browser.session()
    await vi.waitFor(async () => expect((await db.portalSession.findUniqueOrThrow({ where: { id: sessionId } })).lastSeenAt.getTime()).toBeGreaterThan(twoMinutesAgo.getTime()))
    const seen = (await db.portalSession.findUniqueOrThrow({ where: { id: sessionId } })).lastSeenAt
    await browser.session()
    await browser.session()
    expect((await db.portalSession.findUniqueOrThrow({ where: { id: sessionId } })).lastSeenAt).toEqual(seen)
  })

  it('changing the password ends every other session at once, and only the new password signs in', async () => {
    const user = await db.user.create({
      data: { id: `usr_pw${Date.now()}`, tenantId: newsroom.tenant.id, email: `changer-${Date.now()}@example.test`, name: 'Changer', role: 'writer', passwordHash: (await db.user.findUniqueOrThrow({ where: { id: newsroom.users.writer.id } })).passwordHash },
    })
    const here = nextAuthBrowser({ userAgent: firefox, address: '198.51.100.30' })
    const elsewhere = nextAuthBrowser({ userAgent: safari, address: '203.0.113.30' })
    expect(await here.signIn(user.email, 'test-password')).toBe(true)
    expect(await elsewhere.signIn(user.email, 'test-password')).toBe(true)
    const portal = createCaller(portalContextFromSession(await here.session(), here.address))

    await expect(portal.security.changePassword({ currentPassword: 'wrong-password', newPassword: 'a brand new passphrase', confirmPassword: 'a brand new passphrase' })).rejects.toMatchObject({
      code: 'UNPROCESSABLE_CONTENT',
      cause: expect.objectContaining({ fieldErrors: [{ field: 'currentPassword', message: 'That is not your current password.' }] }),
    })
    await expect(portal.security.changePassword({ currentPassword: 'test-password', newPassword: 'short', confirmPassword: 'short' })).rejects.toMatchObject({ code: 'UNPROCESSABLE_CONTENT' })
    expect(await elsewhere.session()).not.toBeNull()

    expect(await portal.security.changePassword({ currentPassword: 'test-password', newPassword: 'a brand new passphrase', confirmPassword: 'a brand new passphrase' })).toEqual({ endedSessions: 1 })
    expect(await elsewhere.session()).toBeNull()
    expect((await here.session())?.user.id).toBe(user.id)
    expect(await nextAuthBrowser({ userAgent: firefox, address: '198.51.100.31' }).signIn(user.email, 'test-password')).toBe(false)
    expect(await nextAuthBrowser({ userAgent: firefox, address: '198.51.100.31' }).signIn(user.email, 'a brand new passphrase')).toBe(true)
    expect(await db.auditEntry.findFirst({ where: { targetId: user.id, action: 'user.password_changed' } })).toMatchObject({ actorId: user.id, metadata: { ended_sessions: 1 } })
  })

  it('deactivation ends every session of the member on its next request', async () => {
    const user = await db.user.create({
      data: { id: `usr_de${Date.now()}`, tenantId: newsroom.tenant.id, email: `leaver-${Date.now()}@example.test`, name: 'Leaver', role: 'editor', passwordHash: (await db.user.findUniqueOrThrow({ where: { id: newsroom.users.writer.id } })).passwordHash },
    })
    const browser = nextAuthBrowser({ userAgent: firefox, address: '198.51.100.40' })
    expect(await browser.signIn(user.email, 'test-password')).toBe(true)
    const admin = await signedIn('admin')
    await (await admin.portal()).users.deactivate({ userId: user.id })
    expect(await browser.session()).toBeNull()
    expect(await db.portalSession.findMany({ where: { userId: user.id } })).toEqual([expect.objectContaining({ endedReason: 'deactivated' })])
  })
})

describe('re-authentication for dangerous acts (sudo mode)', () => {
  it('asks again for the password to create a key of any scope after 10 minutes (a reading key reads every draft)', async () => {
    const admin = await signedIn('admin')
    expect((await (await admin.portal()).apiKeys.create({ ...unbounded, name: 'Fresh admin key', scopes: ['admin'] })).key.scopes).toEqual(['admin'])
    await age(admin.sessionId, 11)
    for (const scopes of [['admin'], ['webhooks:manage'], ['articles:read', 'webhooks:manage'], ['articles:read']] satisfies Scope[][]) {
      await expect((await admin.portal()).apiKeys.create({ ...unbounded, name: 'Stale', scopes })).rejects.toMatchObject({
        code: 'FORBIDDEN',
        message: 'Confirm it is you: enter your password again to do this. It is asked for dangerous changes when you last signed in or confirmed more than 10 minutes ago.',
        cause: expect.objectContaining({ code: 'reauthentication_required' }),
      })
    }
    expect(await db.apiToken.count({ where: { name: 'Stale' } })).toBe(0)

    await expect((await admin.portal()).security.reauthenticate({ password: 'not it' })).rejects.toMatchObject({ code: 'UNPROCESSABLE_CONTENT', message: 'That is not your password.' })
    await expect((await admin.portal()).apiKeys.create({ ...unbounded, name: 'Still stale', scopes: ['admin'] })).rejects.toMatchObject({ code: 'FORBIDDEN' })
    const confirmed = await (await admin.portal()).security.reauthenticate({ password: 'test-password' })
    expect(new Date(confirmed.validUntil).getTime() - new Date(confirmed.reauthenticatedAt).getTime()).toBe(600_000)
    expect((await (await admin.portal()).apiKeys.create({ ...unbounded, name: 'After confirming', scopes: ['admin'] })).key.name).toBe('After confirming')
  })

  it('asks again to roll an admin key, rotate a webhook secret, change a role or make someone an admin', async () => {
    const admin = await signedIn('admin')
    const portal = await admin.portal()
    const { key } = await portal.apiKeys.create({ ...unbounded, name: 'Sudo roll', scopes: ['admin'] })
    const { key: readKey } = await portal.apiKeys.create({ ...unbounded, name: 'Plain roll', scopes: ['articles:read'] })
    const webhook = await portal.webhooks.create({ url: 'http://127.0.0.1:9/hook', events: ['user.created'], secret: 'a-signing-secret-of-32-characters' })
    const acts = {
      roll: async () => (await admin.portal()).apiKeys.roll({ id: key.id, overlap: 'none' }),
      rotate: async () => (await admin.portal()).webhooks.rotateSecret({ webhookId: webhook.webhook_id }),
      changeRole: async () => (await admin.portal()).users.changeRole({ userId: newsroom.users.writer.id, role: 'editor' }),
      newAdmin: async () => (await admin.portal()).users.create({ email: `new-admin-${Date.now()}@example.test`, name: 'New admin', role: 'admin' }),
    }
    await age(admin.sessionId, 10.5)
    for (const act of Object.values(acts)) await expect(act()).rejects.toMatchObject({ cause: expect.objectContaining({ code: 'reauthentication_required' }) })
    // Nothing of the refused acts happened.
    expect((await db.user.findUniqueOrThrow({ where: { id: newsroom.users.writer.id } })).role).toBe('writer')
    expect((await db.apiToken.findUniqueOrThrow({ where: { id: key.id } })).rolledAt).toBeNull()
    // A key without dangerous scopes asks too: the answer is a new working secret.
    await expect((await admin.portal()).apiKeys.roll({ id: readKey.id, overlap: '1h' })).rejects.toMatchObject({ cause: expect.objectContaining({ code: 'reauthentication_required' }) })

    await (await admin.portal()).security.reauthenticate({ password: 'test-password' })
    expect((await acts.roll()).token).toMatch(/^nrs_/)
    expect((await acts.rotate()).secret).toEqual(expect.any(String))
    expect((await acts.changeRole()).role).toBe('editor')
    expect((await acts.newAdmin()).user.role).toBe('admin')
  })

  it('leaves /v1 alone: an API key is not a session', async () => {
    const admin = await signedIn('admin')
    await age(admin.sessionId, 60)
    const token = await newsroom.token(['admin'])
    const { apiClient } = await import('../support/api-client.ts')
    const { startApiServer } = await import('../support/api-server.ts')
    const server = await startApiServer()
    try {
      const created = await apiClient(server.url, token).post('/v1/webhooks', { url: 'http://127.0.0.1:9/v1-hook', events: ['user.created'], secret: 'a-signing-secret-of-32-characters' })
      expect(created.status).toBe(201)
      expect((await apiClient(server.url, token).post(`/v1/webhooks/${created.body.webhook_id}/rotate-secret`)).status).toBe(200)
    } finally {
      await server.close()
    }
  })
})
