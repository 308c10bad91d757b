import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { db } from '../../lib/db/client.ts'
import { createId } from '../../lib/ids.ts'
import { claimEditLease } from '../../lib/articles/edit-lease.ts'
import { serveArticleWatch } from '../../lib/api/portal-watch-route.ts'
import { heldArticlePolls } from '../../lib/api/article-watch-hub.ts'
import { serveEditLeaseAsk } from '../../lib/api/portal-lease-route.ts'
import { appListener } from '../../lib/server/app-listener.ts'
import { createV1Listener } from '../../lib/server/v1-listener.ts'
import { loadSourceV1Routes } from '../../lib/server/v1-route-modules.ts'
import { createCallerFactory } from '../../lib/trpc/init.ts'
import { portalContextFromSession } from '../../lib/trpc/context.ts'
import { appRouter } from '../../lib/trpc/routers/app-router.ts'
import { nextAuthBrowser, nextAuthBrowserSecret } from '../support/next-auth-browser.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// GET /api/articles/{id}/watch, what an open article page polls every 3 s: the portal session
// read without next-auth's getServerSession, refused once the session ends or its member is
// deactivated, kept to the member's own newsroom, and 304 while the ETag (a tag of what the page
// shows of the article) still holds.

const createCaller = createCallerFactory(appRouter)
let newsroom: TestTenant
let other: TestTenant

beforeAll(async () => {
  vi.stubEnv('NEXTAUTH_SECRET', nextAuthBrowserSecret)
  newsroom = await createTestTenant()
  other = await createTestTenant()
})
afterAll(() => vi.unstubAllEnvs())

async function signedIn(role: 'editor' | 'writer', tenant = newsroom) {
  const browser = nextAuthBrowser({ userAgent: 'watch-route test', address: '198.51.100.30' })
  expect(await browser.signIn(tenant.users[role].email, 'test-password')).toBe(true)
  const session = (await browser.session())!
  return { browser, sessionId: session.sessionId, portal: createCaller(portalContextFromSession(session, browser.address)) }
}

function poll(articleId: string, headers: Record<string, string>) {
  return serveArticleWatch(new Request(`http://localhost/api/articles/${articleId}/watch`, { headers }), articleId)
}

async function draft(tenant: TestTenant, headline: string): Promise<string> {
  return (await db.article.create({ data: { id: createId('art'), tenantId: tenant.tenant.id, headline, authorId: tenant.users.writer.id } })).id
}

describe('the article watch route', () => {
  it('answers 304 while nothing changed, and 200 with a new tag after a change, a move, a take-over or a lapsed lease', async () => {
    const { browser, portal } = await signedIn('writer')
    const cookie = browser.cookieHeader()
    const id = (await portal.articles.create({ headline: 'Watched by route', lede: 'First.' })).article_id

    const first = await poll(id, { cookie })
    expect(first.status).toBe(200)
    const etag = first.headers.get('etag')!
    expect(etag).toMatch(/^".+"$/)
    expect(await first.json()).toMatchObject({ unchanged: false, version: 1, status: 'draft', lock: null, tag: etag.slice(1, -1) })

    const unchanged = await poll(id, { cookie, 'if-none-match': etag })
    expect(unchanged.status).toBe(304)
    expect(unchanged.headers.get('etag')).toBe(etag)
    expect(await unchanged.text()).toBe('')

    // Another editor saves: the next poll is a 200 with the new version and a new ETag.
    const editor = await signedIn('editor')
    await editor.portal.articles.update({ article_id: id, version: 1, changes: { lede: 'Changed underneath.' } })
    const changed = await poll(id, { cookie, 'if-none-match': etag })
    expect(changed.status).toBe(200)
    const changedTag = changed.headers.get('etag')!
    expect(changedTag).not.toBe(etag)
    expect(await changed.json()).toMatchObject({ unchanged: false, version: 2, edited_by: `${newsroom.tenant.slug} editor`, tag: changedTag.slice(1, -1) })
    expect((await poll(id, { cookie, 'if-none-match': changedTag })).status).toBe(304)

    // A move (submitted for review).
    await portal.articles.transition({ article_id: id, version: 2, to_state: 'in-review' })
    const moved = await poll(id, { cookie, 'if-none-match': changedTag })
    expect(moved.status).toBe(200)
    expect(await moved.json()).toMatchObject({ version: 3, status: 'in-review' })

    // A take-over of the lease is seen the same way.
    await claimEditLease(newsroom.actor('writer'), id)
    const claimedTag = (await poll(id, { cookie })).headers.get('etag')!
    await claimEditLease(newsroom.actor('editor'), id, { takeOver: true })
    const taken = await poll(id, { cookie, 'if-none-match': claimedTag })
    expect(taken.status).toBe(200)
    // Whose live lease it took, so the writer's page that slept meanwhile does not call it a lapse (break72).
    expect(await taken.json()).toMatchObject({ lock: { holder_id: newsroom.users.editor.id, taken_over_from_id: newsroom.users.writer.id } })

    // A renewal moves only the expiry, which the page does not show: still 304, and still a take-over.
    const takenTag = taken.headers.get('etag')!
    await claimEditLease(newsroom.actor('editor'), id)
    expect((await poll(id, { cookie, 'if-none-match': takenTag })).status).toBe(304)
    expect(await (await poll(id, { cookie })).json()).toMatchObject({ lock: { taken_over_from_id: newsroom.users.writer.id } })
    // A lease that lapses (its holder's page closed without a word) is seen too: the article is free.
    await db.articleLease.update({ where: { articleId: id }, data: { expiresAt: new Date(Date.now() - 1000) } })
    const lapsed = await poll(id, { cookie, 'if-none-match': takenTag })
    expect(lapsed.status).toBe(200)
    expect(await lapsed.json()).toMatchObject({ lock: null })
    // Claimed again once free: nobody's lease was taken.
    await claimEditLease(newsroom.actor('editor'), id)
    expect(await (await poll(id, { cookie })).json()).toMatchObject({ lock: { holder_id: newsroom.users.editor.id, taken_over_from_id: null } })
  })

  it('refuses a request without a session, or with a cookie that is not one', async () => {
    const id = await draft(newsroom, 'No session')
    for (const headers of [{}, { cookie: 'next-auth.session-token=not-a-jwe' }, { cookie: 'other=1' }] as Record<string, string>[]) {
      const answer = await poll(id, headers)
      expect(answer.status).toBe(401)
      expect(await answer.json()).toMatchObject({ error: { code: 'unauthenticated' } })
    }
    // A session encrypted under another secret is no session here.
    const { browser } = await signedIn('writer')
    vi.stubEnv('NEXTAUTH_SECRET', 'another-secret')
    try {
      expect((await poll(id, { cookie: browser.cookieHeader() })).status).toBe(401)
    } finally {
      vi.stubEnv('NEXTAUTH_SECRET', nextAuthBrowserSecret)
    }
  })

  it('holds a poll that asks to wait until what the page shows changes, then answers it as a new poll', async () => {
    const { browser, portal } = await signedIn('writer')
    const cookie = browser.cookieHeader()
    const id = (await portal.articles.create({ headline: 'Held poll', lede: 'First.' })).article_id
    const etag = (await poll(id, { cookie })).headers.get('etag')!

    let answered = false
    const held = poll(id, { cookie, 'if-none-match': etag, prefer: 'wait=25' }).then((answer) => ((answered = true), answer))
    await new Promise((resolve) => setTimeout(resolve, 2_500))
    expect(answered).toBe(false)
    expect(heldArticlePolls()).toBeGreaterThanOrEqual(1)
    const editor = await signedIn('editor')
    await editor.portal.articles.update({ article_id: id, version: 1, changes: { lede: 'Changed while held.' } })
    const changed = await held
    expect(changed.status).toBe(200)
    expect(changed.headers.get('preference-applied')).toBe('wait=25')
    expect(await changed.json()).toMatchObject({ unchanged: false, version: 2, edited_by: `${newsroom.tenant.slug} editor` })

    // Nothing changes: the hold runs out and the answer is the 304 an unheld poll would get.
    const quietTag = changed.headers.get('etag')!
    const quiet = await poll(id, { cookie, 'if-none-match': quietTag, prefer: 'wait=1' })
    expect(quiet.status).toBe(304)
    expect(quiet.headers.get('preference-applied')).toBe('wait=1')

    // A session ended while its poll is held is refused when the poll is answered, and told nothing.
    const ending = await signedIn('writer')
    const endingCookie = ending.browser.cookieHeader()
    const endingTag = (await poll(id, { cookie: endingCookie })).headers.get('etag')!
    const heldForEnded = poll(id, { cookie: endingCookie, 'if-none-match': endingTag, prefer: 'wait=25' })
    await db.portalSession.update({ where: { id: ending.sessionId }, data: { endedAt: new Date(), endedReason: 'ended_by_member' } })
    await editor.portal.articles.update({ article_id: id, version: 2, changes: { lede: 'Changed again.' } })
    expect((await heldForEnded).status).toBe(401)
  })

  it('refuses a session on its next poll once it is signed out elsewhere, or its member deactivated', async () => {
    const id = await draft(newsroom, 'Revoked')
    const ended = await signedIn('writer')
    expect((await poll(id, { cookie: ended.browser.cookieHeader() })).status).toBe(200)
    await db.portalSession.update({ where: { id: ended.sessionId }, data: { endedAt: new Date(), endedReason: 'ended_by_member' } })
    expect((await poll(id, { cookie: ended.browser.cookieHeader() })).status).toBe(401)

    const deactivated = await signedIn('writer')
    const cookie = deactivated.browser.cookieHeader()
    const etag = (await poll(id, { cookie })).headers.get('etag')!
    await db.user.update({ where: { id: newsroom.users.writer.id }, data: { active: false } })
    try {
      // Refused even when nothing changed: the 304 is no shortcut past the session.
      expect((await poll(id, { cookie, 'if-none-match': etag })).status).toBe(401)
    } finally {
      await db.user.update({ where: { id: newsroom.users.writer.id }, data: { active: true } })
    }
  })

  it('refuses a member past the two-factor grace, as every portal page but Security does', async () => {
    const tenant = await createTestTenant()
    const id = await draft(tenant, 'Overdue')
    const member = await signedIn('writer', tenant)
    const cookie = member.browser.cookieHeader()
    expect((await poll(id, { cookie })).status).toBe(200)
    await db.tenant.update({ where: { id: tenant.tenant.id }, data: { twoFactorPolicy: 'all', twoFactorGraceDays: 0, twoFactorPolicyChangedAt: new Date(Date.now() - 60_000) } })
    expect((await poll(id, { cookie })).status).toBe(401)
  })

  it("keeps another newsroom's article out: 404, and nothing of it in the answer", async () => {
    const foreign = await draft(other, 'Elsewhere')
    const { browser } = await signedIn('editor')
    const answer = await poll(foreign, { cookie: browser.cookieHeader() })
    expect(answer.status).toBe(404)
    const body = await answer.text()
    expect(body).toContain('not_found')
    expect(body).not.toContain('Elsewhere')
    expect(answer.headers.get('etag')).toBeNull()
  })

  it('answers a malformed article id with a 422', async () => {
    const { browser } = await signedIn('editor')
    expect((await poll('x'.repeat(201), { cookie: browser.cookieHeader() })).status).toBe(422)
  })
})

function ask(articleId: string, headers: Record<string, string>, body: unknown = {}) {
  return serveEditLeaseAsk(
    new Request(`http://localhost/api/articles/${articleId}/lease`, { method: 'POST', headers: { 'content-type': 'application/json', host: 'localhost', ...headers }, body: JSON.stringify(body) }),
    articleId,
  )
}
const portalHeader = { 'x-newsroom-portal': '1' }

describe('the edit lease route', () => {
  it('claims, renews, answers someone else\'s lease as held, and takes it over when asked', async () => {
    const id = await draft(newsroom, 'Leased by route')
    const writer = await signedIn('writer')
    const editor = await signedIn('editor')
    const claimed = await ask(id, { ...portalHeader, cookie: writer.browser.cookieHeader() })
    expect(claimed.status).toBe(200)
    expect(await claimed.json()).toMatchObject({ mine: true, lock: { holder_id: newsroom.users.writer.id }, took_over_from: null })
    expect(await (await ask(id, { ...portalHeader, cookie: writer.browser.cookieHeader() })).json()).toMatchObject({ mine: true })

    expect(await (await ask(id, { ...portalHeader, cookie: editor.browser.cookieHeader() })).json()).toMatchObject({ mine: false, lock: { holder_id: newsroom.users.writer.id } })
    const taken = await ask(id, { ...portalHeader, cookie: editor.browser.cookieHeader() }, { take_over: true })
    expect(await taken.json()).toMatchObject({ mine: true, lock: { holder_id: newsroom.users.editor.id }, took_over_from: { id: newsroom.users.writer.id } })
    // The writer's next heartbeat learns it lost the lease, taken from them (not found free after a lapse).
    expect(await (await ask(id, { ...portalHeader, cookie: writer.browser.cookieHeader() })).json()).toMatchObject({ mine: false, lock: { holder_id: newsroom.users.editor.id, taken_over_from_id: newsroom.users.writer.id } })
  })

  it('refuses a cross-site request, no session, an ended session, another newsroom\'s article and a malformed body', async () => {
    const id = await draft(newsroom, 'Refused lease')
    const writer = await signedIn('writer')
    const cookie = writer.browser.cookieHeader()
    expect((await ask(id, { cookie })).status).toBe(403)
    expect((await ask(id, { ...portalHeader, cookie, origin: 'https://elsewhere.example' })).status).toBe(403)
    expect((await ask(id, portalHeader)).status).toBe(401)
    expect((await ask(await draft(other, 'Foreign lease'), { ...portalHeader, cookie })).status).toBe(404)
    expect((await ask(id, { ...portalHeader, cookie }, { take_over: 'yes' })).status).toBe(422)
    await db.portalSession.update({ where: { id: writer.sessionId }, data: { endedAt: new Date(), endedReason: 'signed_out' } })
    expect((await ask(id, { ...portalHeader, cookie })).status).toBe(401)
    expect(await db.articleLease.count({ where: { articleId: id } })).toBe(0)
  })
})

describe('the production server', () => {
  it("answers the poll and the lease ask from their route files without Next, as it answers /v1", async () => {
    const reachedNext: string[] = []
    const server = createServer(
      appListener(createV1Listener(await loadSourceV1Routes()), (req, res) => {
        reachedNext.push(`${req.method} ${req.url}`)
        res.writeHead(404).end()
      }),
    )
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    try {
      const id = await draft(newsroom, 'Served directly')
      const { browser } = await signedIn('writer')
      const cookie = browser.cookieHeader()
      const first = await fetch(`${base}/api/articles/${id}/watch`, { headers: { cookie } })
      expect(first.status).toBe(200)
      expect(await first.json()).toMatchObject({ unchanged: false, version: 1 })
      expect((await fetch(`${base}/api/articles/${id}/watch`, { headers: { cookie, 'if-none-match': first.headers.get('etag')! } })).status).toBe(304)
      expect((await fetch(`${base}/api/articles/${id}/watch`)).status).toBe(401)
      const lease = await fetch(`${base}/api/articles/${id}/lease`, { method: 'POST', headers: { cookie, 'x-newsroom-portal': '1', 'content-type': 'application/json' }, body: '{}' })
      expect(lease.status).toBe(200)
      expect(await lease.json()).toMatchObject({ mine: true, lock: { holder_id: newsroom.users.writer.id } })
      expect(reachedNext).toEqual([])
      // Everything else of the portal still goes to Next.
      await fetch(`${base}/api/trpc/articles.get`)
      expect(reachedNext).toEqual(['GET /api/trpc/articles.get'])
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })
})
