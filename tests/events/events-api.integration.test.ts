import os from 'node:os'
import path from 'node:path'
import { cameraJpeg, uploadThroughDomain } from '../support/media-images.ts'
import { deleteMedia, updateMedia } from '../../lib/media/media-library.ts'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createArticle } from '../../lib/articles/create-article.ts'
import { transitionArticle } from '../../lib/articles/transition-article.ts'
import { updateArticle } from '../../lib/articles/update-article.ts'
import { db } from '../../lib/db/client.ts'
import { eventKinds, eventKindsNeverSent } from '../../lib/events/event-kinds.ts'
import { recordEvents } from '../../lib/events/record-event.ts'
import { createId } from '../../lib/ids.ts'
import { parseInput } from '../../lib/parse-input.ts'
import { tenantDb } from '../../lib/tenancy/tenant-db.ts'
import { createApiToken } from '../../lib/tokens/api-tokens.ts'
import { createApiTokenSchema } from '../../lib/tokens/api-token-schemas.ts'
import { changeRole, createUser, deactivateUser } from '../../lib/users/manage-users.ts'
import { createUserSchema } from '../../lib/users/user-schemas.ts'
import { createDeliveriesForEvent } from '../../lib/webhooks/create-deliveries.ts'
import { deliverAttempt } from '../../lib/webhooks/deliver-attempt.ts'
import { createWebhook } from '../../lib/webhooks/manage-subscriptions.ts'
import { sendTestEvent } from '../../lib/webhooks/manual-deliveries.ts'
import { apiClient, type ApiAnswer } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { stubEnv } from '../support/stub-env.ts'
import { startWebhookReceiver } from '../support/webhook-receiver.ts'

// The events API against what subscribers really received: the same changes delivered to a
// receiver on 127.0.0.1 and read back through GET /v1/events over HTTP.

let server: Awaited<ReturnType<typeof startApiServer>>
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>
let newsroom: TestTenant
let other: TestTenant
let events: ReturnType<typeof apiClient>
const sentKinds = eventKinds.filter((kind) => !eventKindsNeverSent.has(kind))

beforeAll(async () => {
  // No settle time, so the oldest-first feed shows what a test just made (one test sets it back).
  stubEnv({ MEDIA_DIR: path.join(os.tmpdir(), 'newsroom-media-events-test'), WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_SECRET_KEY: 'events-api-test-key', SMTP_URL: undefined, SYNC_SETTLE_MS: '0' })
  ;[server, receiver, newsroom, other] = await Promise.all([startApiServer(), startWebhookReceiver(), createTestTenant(), createTestTenant()])
  events = apiClient(server.url, await newsroom.token(['events:read']))
})

afterAll(async () => {
  await Promise.all([server.close(), receiver.close()])
  vi.unstubAllEnvs()
})

/** Every event kind the service emits, made by the domain's own changes. */
async function makeOneOfEveryKind(tenant: TestTenant) {
  const editor = tenant.actor('editor')
  const article = await createArticle(editor, { headline: 'Harbour festival returns', tags: ['Local'], department_id: tenant.departments[0]!.id })
  await updateArticle(editor, article.id, { lede: 'After five years, "the boats" are back — ünïcödé & <b>HTML</b>' })
  await transitionArticle(editor, article.id, { to_state: 'in-review' })
  await transitionArticle(editor, article.id, { to_state: 'approved' })
  await transitionArticle(editor, article.id, { to_state: 'published' })
  await transitionArticle(editor, article.id, { to_state: 'draft' })
  await transitionArticle(editor, article.id, { to_state: 'archived' })
  const admin = tenant.actor('admin')
  const { user } = await createUser(admin, parseInput(createUserSchema, { email: `${createId('usr').slice(-8)}@${tenant.tenant.slug}.example`, name: 'New Reporter', role: 'writer' }))
  await changeRole(admin, { userId: user.id, role: 'editor' })
  await deactivateUser(admin, { userId: user.id })
  // The media library's kinds: an upload, a change, a deletion.
  const { media } = await uploadThroughDomain(editor, await cameraJpeg({ width: 320, height: 200, seed: Math.floor(Math.random() * 1e6) }))
  await updateMedia(editor, media.id, { caption: 'Boats, "quoted" & ünïcödé' })
  await deleteMedia(editor, media.id)
  return article
}

describe('events equal what was delivered', () => {
  it('GET /v1/events/{id} answers, byte for byte, the body every kind was delivered with; the list carries the same bytes', async () => {
    const subscription = await createWebhook(newsroom.actor('admin'), { url: receiver.url, events: [...eventKinds], secret: 'events-api-secret-01' })
    const since = new Date(Date.now() - 1)
    await makeOneOfEveryKind(newsroom)
    const rows = await db.event.findMany({ where: { tenantId: newsroom.tenant.id, kind: { in: [...eventKinds] }, occurredAt: { gte: since } }, orderBy: { occurredAt: 'asc' } })
    expect(new Set(rows.map((row) => row.kind))).toEqual(new Set(sentKinds))

    const deliveredBodies: string[] = []
    for (const row of rows) {
      const [planned] = await createDeliveriesForEvent(row.id)
      const delivery = planned ?? (await db.delivery.findFirstOrThrow({ where: { eventId: row.id, subscriptionId: subscription.id } }))
      receiver.reset()
      await deliverAttempt('deliveryId' in delivery ? delivery.deliveryId : delivery.id, { kind: 'manual' })
      const [received] = receiver.requests
      expect(received, `a delivery of ${row.kind}`).toBeDefined()
      const answer = await events.get(`/v1/events/${row.id}`)
      expect(answer.status).toBe(200)
      expect(answer.text).toBe(received!.body)
      deliveredBodies.push(received!.body)
    }

    const page = await events.get(`/v1/events?sort=created_at&created_after=${since.toISOString()}&limit=200`)
    expect(page.status).toBe(200)
    expect(page.body.items.map((item: { event_id: string }) => item.event_id)).toEqual(rows.map((row) => row.id))
    for (const body of deliveredBodies) expect(page.text).toContain(body)
    // One event of every kind made, delivered and read back one by one (media's upload runs
    // sharp): 63 s at load 25 on 2 cores, past the 30 s default. The bound only stops a hang.
  }, 180_000)
})

describe('paging and filters', () => {
  let article: { id: string }
  let mine: string[]
  let since: string

  beforeAll(async () => {
    since = new Date(Date.now() - 1).toISOString()
    article = await makeOneOfEveryKind(other)
    await createArticle(other.actor('editor'), { headline: 'Another story' })
    mine = (await db.event.findMany({ where: { tenantId: other.tenant.id, kind: { in: [...eventKinds] } }, orderBy: [{ occurredAt: 'desc' }, { id: 'desc' }], select: { id: true } })).map((row) => row.id)
  })

  async function walk(client: ReturnType<typeof apiClient>, query: string) {
    const seen: string[] = []
    let cursor: string | null = null
    for (let page = 0; page < 50; page++) {
      const answer: ApiAnswer = await client.get(`/v1/events?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
      expect(answer.status, answer.text).toBe(200)
      seen.push(...answer.body.items.map((item: { event_id: string }) => item.event_id))
      // Oldest first is a feed: its cursor never ends, an empty page says it is caught up.
      if (answer.body.items.length === 0) return seen
      cursor = answer.body.next_cursor
      if (!cursor) return seen
    }
    throw new Error('paging never ended')
  }

  it('pages newest first and oldest first by cursor, each event once, never another newsroom\'s', async () => {
    const client = apiClient(server.url, await other.token(['events:read']))
    expect(await walk(client, 'limit=3')).toEqual(mine)
    expect(await walk(client, 'limit=4&sort=created_at')).toEqual([...mine].reverse())
    const first = await client.get('/v1/events?limit=2')
    expect(first.body).toMatchObject({ limit: 2, next_cursor: expect.any(String) })
    expect(first.body.items).toHaveLength(2)
  })

  it('the oldest-first feed shows an event once it has settled, and its kept cursor picks up what came after', async () => {
    const client = apiClient(server.url, await other.token(['events:read']))
    const caughtUp = await client.get('/v1/events?sort=created_at&limit=200')
    expect(caughtUp.body.items).toHaveLength(mine.length)
    const empty = await client.get(`/v1/events?sort=created_at&limit=200&cursor=${encodeURIComponent(caughtUp.body.next_cursor)}`)
    expect(empty.body).toMatchObject({ items: [], next_cursor: expect.any(String) })

    stubEnv({ SYNC_SETTLE_MS: '600000' })
    try {
      const fresh = await createArticle(other.actor('editor'), { headline: 'Just now' })
      // Newest first shows it at once; the feed waits for the settle time.
      expect((await client.get('/v1/events?limit=1')).body.items[0].data.article_id).toBe(fresh.id)
      expect((await client.get(`/v1/events?sort=created_at&cursor=${encodeURIComponent(empty.body.next_cursor)}`)).body.items).toEqual([])
    } finally {
      stubEnv({ SYNC_SETTLE_MS: '0' })
    }
    const next = await client.get(`/v1/events?sort=created_at&cursor=${encodeURIComponent(empty.body.next_cursor)}`)
    expect(next.body.items).toEqual([expect.objectContaining({ event: 'article.created', data: expect.objectContaining({ headline: 'Just now' }) })])
    mine.unshift(next.body.items[0].event_id)
  })

  it('filters by one kind or several, by article and by time', async () => {
    const client = apiClient(server.url, await other.token(['events:read']))
    const kinds = async (query: string) => (await walk(client, query)).length
    const count = (where: object) => db.event.count({ where: { tenantId: other.tenant.id, ...where } })
    expect(await kinds('type=article.published')).toBe(1)
    expect(await kinds('type=article.published,user.created&limit=1')).toBe(2)
    expect(await kinds('type=article.created')).toBe(await count({ kind: 'article.created' }))
    expect(await kinds('type=workflow.transitioned')).toBe(await count({ kind: 'workflow.transitioned' }))
    const aboutArticle = await walk(client, `article_id=${article.id}`)
    expect(aboutArticle).toHaveLength(await count({ kind: { in: [...eventKinds] }, data: { path: ['article_id'], equals: article.id } }))
    expect(aboutArticle.length).toBeGreaterThanOrEqual(8)
    const answer = await client.get(`/v1/events?article_id=${article.id}&type=article.archived`)
    expect(answer.body.items).toEqual([expect.objectContaining({ event: 'article.archived', data: expect.objectContaining({ article_id: article.id, status: 'archived' }) })])
    expect(await kinds(`created_after=${since}`)).toBe(mine.length)
    expect(await kinds(`created_before=${since}`)).toBe(0)
    expect(await kinds(`created_after=${new Date(Date.now() + 60_000).toISOString()}`)).toBe(0)
  })

  it('refuses unknown kinds, parameters and a cursor of other filters with 422', async () => {
    const client = apiClient(server.url, await other.token(['events:read']))
    const unknownKind = await client.get('/v1/events?type=article.deleted')
    expect(unknownKind.status).toBe(422)
    expect(unknownKind.body.errors[0]).toMatchObject({ field: 'type', message: expect.stringContaining('article.deleted') })
    expect((await client.get('/v1/events?offset=10')).status).toBe(422)
    expect((await client.get('/v1/events?limit=201')).status).toBe(422)
    expect((await client.get('/v1/events?sort=kind')).status).toBe(422)
    const { body } = await client.get('/v1/events?limit=1')
    const mixed = await client.get(`/v1/events?limit=1&type=article.created&cursor=${encodeURIComponent(body.next_cursor)}`)
    expect(mixed.status).toBe(422)
    expect(mixed.body.errors[0]).toMatchObject({ field: 'cursor' })
  })
})

describe('what is and is not an event of the newsroom', () => {
  it('never lists the service\'s scheduling events or test events sent to one receiver', async () => {
    const subscription = await createWebhook(newsroom.actor('admin'), { url: receiver.url, events: ['article.published'], secret: 'events-api-secret-02' })
    const test = await sendTestEvent(newsroom.actor('admin'), subscription.id)
    const [scheduled] = await tenantDb(newsroom.tenant.id).$transaction((tx) =>
      recordEvents(tx, newsroom.tenant.id, [{ kind: 'article.publish_scheduled', data: { article_id: 'art_x', publish_at: new Date().toISOString() } }]),
    )
    expect((await events.get(`/v1/events/${test.eventId}`)).status).toBe(404)
    expect((await events.get(`/v1/events/${scheduled!.id}`)).status).toBe(404)
    const listed = await events.get('/v1/events?limit=200')
    expect(listed.text).not.toContain(test.eventId)
    expect(listed.text).not.toContain(scheduled!.id)
  })
})

describe('scopes and tenancy', () => {
  it('needs events:read (admin grants it); other scopes get 403 with the scope named', async () => {
    for (const scopes of [['articles:read'], ['webhooks:manage'], ['articles:read', 'articles:write']]) {
      const answer = await apiClient(server.url, await newsroom.token(scopes)).get('/v1/events')
      expect(answer.status).toBe(403)
      expect(answer.body.code).toBe('insufficient_scope')
      expect(answer.headers.get('www-authenticate')).toContain('scope="events:read"')
    }
    expect((await apiClient(server.url, await newsroom.token(['admin'])).get('/v1/events')).status).toBe(200)
    expect((await apiClient(server.url).get('/v1/events')).status).toBe(401)
  })

  it('an editor cannot give a key events:read, and a key whose owner is no longer admin loses it', async () => {
    await expect(newsroom.token(['events:read'], 'editor')).rejects.toThrow()
    const admin = newsroom.actor('admin')
    const { user } = await createUser(admin, parseInput(createUserSchema, { email: `${createId('usr').slice(-8)}@${newsroom.tenant.slug}.example`, name: 'Second Admin', role: 'admin' }))
    const { token } = await createApiToken({ ...admin, user: null }, { ...parseInput(createApiTokenSchema, { name: 'events reader', scopes: ['events:read'] }), ownerId: user.id })
    const client = apiClient(server.url, token)
    expect((await client.get('/v1/events')).status).toBe(200)
    // The key's scopes follow its owner's role: an editor may not read events.
    await changeRole(admin, { userId: user.id, role: 'editor' })
    expect((await client.get('/v1/events')).status).toBe(403)
  })

  it("another newsroom's event is a 404, never a 403, and never listed", async () => {
    const [theirs] = await tenantDb(other.tenant.id).$transaction((tx) => recordEvents(tx, other.tenant.id, [{ kind: 'article.created', data: { article_id: 'art_theirs', headline: 'Theirs' } }]))
    const answer = await events.get(`/v1/events/${theirs!.id}`)
    expect(answer.status).toBe(404)
    expect(answer.body.code).toBe('not_found')
    expect((await events.get('/v1/events?article_id=art_theirs')).body.items).toEqual([])
  })
})
