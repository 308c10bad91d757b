import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createArticle } from '../../lib/articles/create-article.ts'
import { sqlPool } from '../../lib/db/client.ts'
import { pruneEvents } from '../../lib/events/prune-events.ts'
import { recordEvents } from '../../lib/events/record-event.ts'
import { tenantDb } from '../../lib/tenancy/tenant-db.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { stubEnv } from '../support/stub-env.ts'

// Pages of GET /v1/events are kept by the response cache under the newsroom's event generation.
// An event written behind the service's back (recordEvents outside commitChange) advances
// nothing, which is how these tests see that a page really was served from the cache; every
// event the service commits, and every pruning, must show at once.

let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let other: TestTenant
let client: ReturnType<typeof apiClient>
let otherClient: ReturnType<typeof apiClient>

beforeAll(async () => {
  stubEnv({ SYNC_SETTLE_MS: '0', RESPONSE_CACHE: undefined })
  ;[server, newsroom, other] = await Promise.all([startApiServer(), createTestTenant(), createTestTenant()])
  client = apiClient(server.url, await newsroom.token(['events:read']))
  otherClient = apiClient(server.url, await other.token(['events:read']))
  await createArticle(newsroom.actor('editor'), { headline: 'First story' })
  await createArticle(other.actor('editor'), { headline: 'Their story' })
})

afterAll(async () => {
  await server.close()
  vi.unstubAllEnvs()
})

/** Asks twice, so the page is kept (the cache keeps a query from its second asking on). */
async function warm(api: ReturnType<typeof apiClient>, path: string) {
  await api.get(path)
  return api.get(path)
}

const ids = (answer: { body: { items: { event_id: string }[] } }) => answer.body.items.map((item) => item.event_id)

function sneakIn(tenant: TestTenant, headline: string, occurredAt?: Date) {
  return tenantDb(tenant.tenant.id).$transaction((tx) => recordEvents(tx, tenant.tenant.id, [{ kind: 'article.created', data: { article_id: 'art_sneaked', headline }, occurredAt }]))
}

describe('the newest page', () => {
  it('shows an event the service commits at once, though the page before it was cached; its ETag changes and a stale If-None-Match gets the new page', async () => {
    const path = '/v1/events?limit=5'
    const before = await warm(client, path)
    expect(before.status).toBe(200)
    const etag = before.headers.get('etag')!
    expect(etag).toMatch(/^".+"$/)
    expect((await client.get(path, { 'If-None-Match': etag })).status).toBe(304)

    // Served from the cache: an event that advanced nothing is not seen.
    const [sneaked] = await sneakIn(newsroom, 'Behind the back')
    expect(ids(await client.get(path))).not.toContain(sneaked!.id)

    const article = await createArticle(newsroom.actor('editor'), { headline: 'Breaking' })
    const after = await client.get(path, { 'If-None-Match': etag })
    expect(after.status).toBe(200)
    expect(after.body.items[0]).toMatchObject({ event: 'article.created', data: { article_id: article.id } })
    expect(ids(after)).toContain(sneaked!.id)
    expect(after.headers.get('etag')).not.toBe(etag)
    expect(after.headers.get('cache-control')).toBe('private, no-cache')
  })

  it('a user change, which is no article change, shows at once too', async () => {
    const path = '/v1/events?limit=3&type=user.created,article.created'
    await warm(client, path)
    const { createUser } = await import('../../lib/users/manage-users.ts')
    const { parseInput } = await import('../../lib/parse-input.ts')
    const { createUserSchema } = await import('../../lib/users/user-schemas.ts')
    const { user } = await createUser(newsroom.actor('admin'), parseInput(createUserSchema, { email: `new-${Date.now()}@${newsroom.tenant.slug}.example`, name: 'New Reporter', role: 'writer' }))
    const after = await client.get(path)
    expect(after.body.items[0]).toMatchObject({ event: 'user.created', data: expect.objectContaining({ user_id: user.id }) })
  })
})

describe('keys', () => {
  it('another newsroom asking the same URL gets its own page, never the cached one, and a cursor of the other newsroom is still refused', async () => {
    const path = '/v1/events?limit=2'
    const mine = await warm(client, path)
    const theirs = await otherClient.get(path)
    expect(theirs.status).toBe(200)
    expect(theirs.body.items.length).toBeGreaterThan(0)
    for (const item of theirs.body.items) expect(item.tenant_id).toBe(other.tenant.id)
    expect(ids(theirs)).not.toEqual(expect.arrayContaining(ids(mine)))
    expect(theirs.text).not.toBe(mine.text)

    // The cursor is checked before the cache is asked, whichever newsroom's page is kept.
    const cursorPath = `/v1/events?limit=2&cursor=${encodeURIComponent(mine.body.next_cursor)}`
    expect((await warm(client, cursorPath)).status).toBe(200)
    const refused = await otherClient.get(cursorPath)
    expect(refused.status).toBe(422)
    expect(refused.body.errors[0]).toMatchObject({ field: 'cursor' })
  })

  it('a different filter is a different page, in any parameter order the same one', async () => {
    const created = await warm(client, '/v1/events?type=article.created&limit=50')
    const users = await client.get('/v1/events?type=user.created&limit=50')
    expect(created.body.items.every((item: { event: string }) => item.event === 'article.created')).toBe(true)
    expect(users.body.items.every((item: { event: string }) => item.event === 'user.created')).toBe(true)
    expect(users.text).not.toBe(created.text)
    expect((await client.get('/v1/events?limit=50&type=article.created')).text).toBe(created.text)
    const oldestFirst = await client.get('/v1/events?type=article.created&limit=50&sort=created_at')
    expect(ids(oldestFirst)).toEqual([...ids(created)].reverse())
  })
})

describe('retention', () => {
  it('a pruned event leaves a cached page as soon as pruning has run', async () => {
    const longAgo = new Date(Date.now() - 40 * 86_400_000)
    const [old] = await sneakIn(newsroom, 'Old news', longAgo)
    await sqlPool.query('UPDATE events SET created_at = $2, sent_to_queue_at = $2 WHERE id = $1', [old!.id, longAgo])
    const path = `/v1/events?created_before=${new Date(Date.now() - 35 * 86_400_000).toISOString()}`
    expect(ids(await warm(client, path))).toEqual([old!.id])

    await pruneEvents()
    expect(ids(await client.get(path))).toEqual([])
  })
})
