import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { publishIfStillScheduled } from '../../lib/articles/transition-article.ts'
import { db } from '../../lib/db/client.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { spawnApiServer } from '../support/spawn-api-server.ts'
import { stubEnv } from '../support/stub-env.ts'
import { testRedisUrl } from '../support/test-env.ts'

// Repeated list and get requests are answered from a cache keyed by tenant, query and the
// tenant's article generation. A change made behind the service's back (plain SQL) is what
// shows a cached answer; every change made through the service is seen by the next read.

let newsroom: TestTenant
let other: TestTenant

beforeAll(async () => {
  ;[newsroom, other] = await Promise.all([createTestTenant({ plan: 'enterprise' }), createTestTenant({ plan: 'enterprise' })])
})

afterAll(() => vi.unstubAllEnvs())

const headlineBehindTheServicesBack = (id: string, headline: string) => db.$executeRaw`UPDATE articles SET headline = ${headline} WHERE id = ${id}`

async function readsItsOwnWrites(server: { url: string }) {
  const editor = apiClient(server.url, await newsroom.token(['articles:read', 'articles:write'], 'editor'))
  const created = await editor.post('/v1/articles', { headline: 'Cached once', status: 'in-review' })
  const path = `/v1/articles/${created.body.article_id}`
  expect((await editor.get(path)).body.headline).toBe('Cached once')
  // Answers are kept the second time they are asked for (a one-off query is not worth keeping).
  expect((await editor.get(path)).body.headline).toBe('Cached once')
  await editor.get('/v1/articles?limit=200&status=in-review')

  // Served from the cache: a change that bypassed the service does not show…
  await headlineBehindTheServicesBack(created.body.article_id, 'Changed in SQL')
  expect((await editor.get(path)).body.headline).toBe('Cached once')
  const list = await editor.get('/v1/articles?limit=200&status=in-review')
  expect(list.body.items.some((item: { article_id: string }) => item.article_id === created.body.article_id)).toBe(true)

  // …but every change through the service is seen by the very next read: PATCH,
  expect((await editor.patch(path, { lede: 'Now with a lede' })).status).toBe(200)
  expect((await editor.get(path)).body).toMatchObject({ headline: 'Changed in SQL', lede: 'Now with a lede', version: 2 })
  // a transition (the list filtered by status changes too),
  expect((await editor.post(`${path}/transitions`, { to_state: 'approved' })).status).toBe(200)
  expect((await editor.get(path)).body.status).toBe('approved')
  const stillInReview = await editor.get('/v1/articles?limit=200&status=in-review')
  expect(stillInReview.body.items.some((item: { article_id: string }) => item.article_id === created.body.article_id)).toBe(false)
  // a create,
  const before = (await editor.get('/v1/articles?limit=1')).body.total
  expect((await editor.post('/v1/articles', { headline: 'Another' })).status).toBe(201)
  expect((await editor.get('/v1/articles?limit=1')).body.total).toBe(before + 1)
  // a bulk import,
  const bulk = await editor.post('/v1/articles/bulk', { articles: [{ external_id: `cache-${Date.now()}`, headline: 'From the wire' }] })
  expect(bulk.status).toBe(200)
  expect((await editor.get('/v1/articles?limit=1')).body.total).toBe(before + 2)
  // and a scheduled publication firing.
  const publishAt = new Date(Date.now() + 3_600_000)
  expect((await editor.post(`${path}/transitions`, { to_state: 'published', publish_at: publishAt.toISOString() })).status).toBe(200)
  expect((await editor.get(path)).body.status).toBe('approved')
  const fired = await publishIfStillScheduled(newsroom.actor('editor'), created.body.article_id, publishAt, publishAt)
  expect(fired.published).toBe(true)
  expect((await editor.get(path)).body.status).toBe('published')
}

describe('the response cache', () => {
  it('in process memory (no REDIS_URL): a reader sees its own writes on every write path', async () => {
    stubEnv({ REDIS_URL: undefined })
    const server = await startApiServer()
    try {
      await readsItsOwnWrites(server)
    } finally {
      await server.close()
    }
  })

  it('in Redis: the same, and a write through one instance is seen at once through another', async () => {
    stubEnv({ REDIS_URL: testRedisUrl })
    const server = await startApiServer()
    try {
      await readsItsOwnWrites(server)
    } finally {
      await server.close()
    }

    const env = { REDIS_URL: testRedisUrl }
    const [first, second] = await Promise.all([spawnApiServer(process.env.DATABASE_URL!, { env }), spawnApiServer(process.env.DATABASE_URL!, { env })])
    try {
      const token = await newsroom.token(['articles:read', 'articles:write'])
      const viaFirst = apiClient(first.url, token)
      const viaSecond = apiClient(second.url, token)
      const created = await viaFirst.post('/v1/articles', { headline: 'Two instances' })
      const path = `/v1/articles/${created.body.article_id}`
      expect((await viaFirst.get(path)).body.version).toBe(1)
      expect((await viaFirst.get(path)).body.version).toBe(1)
      await headlineBehindTheServicesBack(created.body.article_id, 'Changed in SQL')
      // The second instance reads its first ask from the database (a query asked once is not
      // looked for in Redis), and its repeats from the entry the first one made there.
      expect((await viaSecond.get(path)).body.headline).toBe('Changed in SQL')
      expect((await viaSecond.get(path)).body.headline).toBe('Two instances')
      expect((await viaSecond.patch(path, { tags: ['second'] })).status).toBe(200)
      expect((await viaFirst.get(path)).body).toMatchObject({ version: 2, tags: ['second'], headline: 'Changed in SQL' })
    } finally {
      await Promise.all([first.stop(), second.stop()])
    }
  })

  it('keeps an answer from the second time its query is asked, so one-off queries take no room', async () => {
    stubEnv({ REDIS_URL: undefined })
    const server = await startApiServer()
    try {
      const editor = apiClient(server.url, await newsroom.token(['articles:read', 'articles:write'], 'editor'))
      const created = await editor.post('/v1/articles', { headline: 'First' })
      const path = `/v1/articles/${created.body.article_id}`
      expect((await editor.get(path)).body.headline).toBe('First')
      await headlineBehindTheServicesBack(created.body.article_id, 'Second')
      // Asked once before: produced again, and now kept…
      expect((await editor.get(path)).body.headline).toBe('Second')
      await headlineBehindTheServicesBack(created.body.article_id, 'Third')
      // …so the third read is the kept answer.
      expect((await editor.get(path)).body.headline).toBe('Second')
    } finally {
      await server.close()
    }
  })

  it('never answers one newsroom with another’s cached page', async () => {
    stubEnv({ REDIS_URL: testRedisUrl })
    const server = await startApiServer()
    try {
      const ours = apiClient(server.url, await newsroom.token(['articles:read', 'articles:write']))
      const theirs = apiClient(server.url, await other.token(['articles:read', 'articles:write']))
      await ours.post('/v1/articles', { headline: 'Ours only' })
      await theirs.post('/v1/articles', { headline: 'Theirs only' })
      const ourPage = await ours.get('/v1/articles?limit=200')
      const theirPage = await theirs.get('/v1/articles?limit=200')
      expect(ourPage.body.items.map((item: { headline: string }) => item.headline)).not.toContain('Theirs only')
      expect(theirPage.body.items.map((item: { headline: string }) => item.headline)).not.toContain('Ours only')
      expect(theirPage.body.items.every((item: { author_id: string }) => Object.values(other.users).some((user) => user.id === item.author_id))).toBe(true)
    } finally {
      await server.close()
    }
  })
})
