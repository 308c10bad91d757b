import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { articlesChanged, articleTotal } from '../../lib/articles/article-totals.ts'
import { closeRedis } from '../../lib/redis.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { stubEnv } from '../support/stub-env.ts'
import { testRedisUrl } from '../support/test-env.ts'

// List totals are cached per tenant until an article changes (lib/articles/article-totals.ts).
// Each store — Redis, shared by instances, and process memory, the embedded default — must
// count a change in the very next list of the client that made it.
describe.each([
  ['Redis', testRedisUrl],
  ['process memory', undefined],
])('list totals kept in %s', (_store, redisUrl) => {
  let server: Awaited<ReturnType<typeof startApiServer>>
  let newsroom: TestTenant
  let client: ReturnType<typeof apiClient>

  beforeAll(async () => {
    stubEnv({ REDIS_URL: redisUrl })
    server = await startApiServer()
    newsroom = await createTestTenant()
    client = apiClient(server.url, await newsroom.token(['admin']))
  })
  afterAll(async () => {
    await server.close()
    await closeRedis()
  })

  const total = async (query = '') => {
    const answer = await client.get(`/v1/articles?limit=1${query}`)
    expect(answer.status).toBe(200)
    return answer.body.total as number
  }

  it('counts a created article in the creator’s next list, filtered or not', async () => {
    const before = await total()
    const draftsBefore = await total('&status=draft')
    const created = await client.post('/v1/articles', { headline: 'Counted at once' })
    expect(created.status).toBe(201)
    expect(await total()).toBe(before + 1)
    expect(await total('&status=draft')).toBe(draftsBefore + 1)
  })

  it('moves an article between the totals of its old and new state on a transition', async () => {
    const created = await client.post('/v1/articles', { headline: 'Moving on' })
    const drafts = await total('&status=draft')
    const inReview = await total('&status=in-review')
    const moved = await client.post(`/v1/articles/${created.body.article_id}/transitions`, { to_state: 'in-review' })
    expect(moved.status, JSON.stringify(moved.body)).toBe(200)
    expect(await total('&status=draft')).toBe(drafts - 1)
    expect(await total('&status=in-review')).toBe(inReview + 1)
  })

  it('counts every article of a bulk import, and keeps next_offset consistent with the total', async () => {
    const before = await total()
    const imported = await client.post('/v1/articles/bulk', {
      articles: Array.from({ length: 30 }, (_, i) => ({ external_id: `TOTALS-${redisUrl ? 'r' : 'm'}-${i}`, headline: `Wire ${i}` })),
    })
    expect(imported.status).toBe(200)
    const page = await client.get(`/v1/articles?limit=10&offset=${before + 20}`)
    expect(page.body.total).toBe(before + 30)
    expect(page.body.items).toHaveLength(10)
    expect(page.body.next_offset).toBeNull()
  })
})

describe('the totals cache', () => {
  afterAll(closeRedis)

  it('counts once per tenant, filter and change, and never mixes tenants or filters', async () => {
    stubEnv({ REDIS_URL: testRedisUrl })
    const counted: string[] = []
    const count = (label: string, value: number) => async () => {
      counted.push(label)
      return value
    }
    const [a, b] = [`ten_totals_a_${Date.now()}`, `ten_totals_b_${Date.now()}`]
    expect(await articleTotal(a, { status: 'draft' }, count('a/draft', 7))).toBe(7)
    expect(await articleTotal(a, { status: 'draft' }, count('a/draft again', 99))).toBe(7)
    expect(await articleTotal(a, { status: 'published' }, count('a/published', 3))).toBe(3)
    expect(await articleTotal(b, { status: 'draft' }, count('b/draft', 5))).toBe(5)
    await articlesChanged([a])
    expect(await articleTotal(a, { status: 'draft' }, count('a/draft after change', 8))).toBe(8)
    expect(await articleTotal(b, { status: 'draft' }, count('b/draft after a’s change', 99))).toBe(5)
    expect(counted).toEqual(['a/draft', 'a/published', 'b/draft', 'a/draft after change'])
  })

  it.each([
    ['Redis', testRedisUrl],
    ['process memory', undefined],
  ])('runs one count for requests that ask at once (%s), and a new one for those after a change', async (_store, redisUrl) => {
    stubEnv({ REDIS_URL: redisUrl })
    const tenant = `ten_totals_herd_${Date.now()}_${redisUrl ? 'redis' : 'memory'}`
    let counts = 0
    const slowCount = (value: number) => async () => {
      counts++
      await new Promise((resolve) => setTimeout(resolve, 50))
      return value
    }
    const asked = await Promise.all(Array.from({ length: 32 }, () => articleTotal(tenant, { tag: 'herd' }, slowCount(40))))
    expect(asked).toEqual(Array(32).fill(40))
    expect(counts).toBe(1)

    // After a change, the requests asking at once count again, once.
    await articlesChanged([tenant])
    const after = await Promise.all(Array.from({ length: 8 }, () => articleTotal(tenant, { tag: 'herd' }, slowCount(42))))
    expect(after).toEqual(Array(8).fill(42))
    expect(counts).toBe(2)
    await closeRedis()
  })

  it('counts every time, without failing the list, while Redis cannot be reached', async () => {
    await closeRedis()
    stubEnv({ REDIS_URL: 'redis://127.0.0.1:1' })
    const tenant = `ten_totals_down_${Date.now()}`
    let counts = 0
    const count = async () => ++counts
    expect(await articleTotal(tenant, {}, count)).toBe(1)
    expect(await articleTotal(tenant, {}, count)).toBe(2)
    await expect(articlesChanged([tenant])).resolves.toBeUndefined()
    await closeRedis()
  })
})
