import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { db } from '../../lib/db/client.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let client: ReturnType<typeof apiClient>

const wireItem = (i: number, extra: Record<string, unknown> = {}) => ({
  external_id: `WIRE-${i}`,
  headline: `Wire story ${i}`,
  lede: `Lede ${i}`,
  body: `<p>Body ${i}</p>`,
  tags: ['wire', 'wire', `batch-${i % 3}`],
  ...extra,
})

beforeAll(async () => {
  server = await startApiServer()
  newsroom = await createTestTenant()
  client = apiClient(server.url, await newsroom.token(['articles:read', 'articles:write']))
})
afterAll(() => server.close())

describe('bulk import', () => {
  it('stores 500 valid articles with one article.created event each', async () => {
    const articles = Array.from({ length: 500 }, (_, i) => wireItem(i, { department_id: newsroom.departments[i % 2]!.id }))
    const answer = await client.post('/v1/articles/bulk', { articles })
    expect(answer.status).toBe(200)
    expect(answer.body).toMatchObject({ created: 500, updated: 0, failed: 0 })
    expect(answer.body.results).toHaveLength(500)
    answer.body.results.forEach((result: any, i: number) => expect(result).toMatchObject({ index: i, status: 'created', external_id: `WIRE-${i}`, article_id: expect.stringMatching(/^art_/) }))
    expect(await db.article.count({ where: { tenantId: newsroom.tenant.id } })).toBe(500)
    expect(await db.event.count({ where: { tenantId: newsroom.tenant.id, kind: 'article.created' } })).toBe(500)
    const stored = await client.get(`/v1/articles/${answer.body.results[7].article_id}`)
    expect(stored.body).toMatchObject({ headline: 'Wire story 7', status: 'draft', tags: ['wire', 'batch-1'], author_id: newsroom.users.admin.id })
  })

  it('re-sent external_ids update the same articles instead of duplicating them', async () => {
    const before = await db.article.count({ where: { tenantId: newsroom.tenant.id } })
    const first = await client.get('/v1/articles?tag=batch-0&limit=1')
    const answer = await client.post('/v1/articles/bulk', { articles: [wireItem(0, { headline: 'Wire story 0, updated', lede: undefined }), wireItem(1000)] })
    expect(answer.body).toMatchObject({ created: 1, updated: 1, failed: 0 })
    expect(answer.body.results[0]).toMatchObject({ status: 'updated', external_id: 'WIRE-0' })
    expect(await db.article.count({ where: { tenantId: newsroom.tenant.id } })).toBe(before + 1)
    const updated = await db.article.findFirstOrThrow({ where: { tenantId: newsroom.tenant.id, externalId: 'WIRE-0' } })
    expect(updated).toMatchObject({ id: answer.body.results[0].article_id, headline: 'Wire story 0, updated', lede: 'Lede 0', version: 2 })
    const events = await db.event.findMany({ where: { tenantId: newsroom.tenant.id, kind: 'article.updated' } })
    expect(events.map((event) => (event.data as any).article_id)).toEqual([updated.id])
    expect(first.status).toBe(200)
  })

  it('stores the valid items of a mixed batch and reports the invalid ones by index', async () => {
    const answer = await client.post('/v1/articles/bulk', {
      articles: [
        wireItem(2001),
        { headline: '' },
        wireItem(2002, { department_id: 'dep_not_ours' }),
        'not an object',
        wireItem(2003, { status: 'published' }),
        wireItem(2001, { headline: 'Same external id twice' }),
        wireItem(2004, { surprise: true }),
        wireItem(2005),
      ],
    })
    expect(answer.status).toBe(200)
    expect(answer.body).toMatchObject({ created: 2, updated: 0, failed: 6 })
    const byIndex = answer.body.results
    expect(byIndex.map((result: any) => result.status)).toEqual(['created', 'failed', 'failed', 'failed', 'failed', 'failed', 'failed', 'created'])
    expect(byIndex[1].errors[0].field).toBe('headline')
    expect(byIndex[2].errors[0].field).toBe('department_id')
    expect(byIndex[4].errors[0].field).toBe('status')
    expect(byIndex[5].errors[0]).toMatchObject({ field: 'external_id', message: expect.stringContaining('index 0') })
    expect(byIndex[6].errors[0].field).toBe('surprise')
    expect(await db.article.count({ where: { tenantId: newsroom.tenant.id, externalId: { in: ['WIRE-2002', 'WIRE-2003', 'WIRE-2004'] } } })).toBe(0)
  })

  it('stores items sent straight to review, and their events say in-review', async () => {
    const answer = await client.post('/v1/articles/bulk', { articles: [wireItem(9001, { status: 'in-review' }), wireItem(9002)] })
    expect(answer.status).toBe(200)
    expect(answer.body).toMatchObject({ created: 2, failed: 0 })
    const inReview = await client.get(`/v1/articles/${answer.body.results[0].article_id}`)
    expect(inReview.body.status).toBe('in-review')
    const event = await db.event.findFirstOrThrow({ where: { tenantId: newsroom.tenant.id, kind: 'article.created', data: { path: ['article_id'], equals: inReview.body.article_id } } })
    expect(event.data).toMatchObject({ article_id: inReview.body.article_id, status: 'in-review' })
  })

  it('refuses 501 articles whole, storing nothing', async () => {
    const before = await db.article.count({ where: { tenantId: newsroom.tenant.id } })
    const answer = await client.post('/v1/articles/bulk', { articles: Array.from({ length: 501 }, (_, i) => wireItem(5000 + i)) })
    expect(answer.status).toBe(413)
    expect(answer.body.code).toBe('too_many_items')
    expect(await db.article.count({ where: { tenantId: newsroom.tenant.id } })).toBe(before)
  })

  it('refuses an empty batch and a body without articles', async () => {
    expect((await client.post('/v1/articles/bulk', { articles: [] })).status).toBe(422)
    expect((await client.post('/v1/articles/bulk', { items: [] })).status).toBe(422)
  })

  it("leaves archived articles alone and never touches another tenant's external_id", async () => {
    const archivedId = (await db.article.findFirstOrThrow({ where: { tenantId: newsroom.tenant.id, externalId: 'WIRE-3' } })).id
    await apiClient(server.url, await newsroom.token(['articles:write'])).post(`/v1/articles/${archivedId}/transitions`, { to_state: 'archived' })
    const answer = await client.post('/v1/articles/bulk', { articles: [wireItem(3, { headline: 'Rewrite history' })] })
    expect(answer.body.results[0]).toMatchObject({ status: 'failed', errors: [{ field: 'external_id' }] })
    expect((await db.article.findUniqueOrThrow({ where: { id: archivedId } })).headline).toBe('Wire story 3')

    const other = await createTestTenant()
    const theirs = await apiClient(server.url, await other.token(['articles:write'])).post('/v1/articles/bulk', { articles: [wireItem(4, { headline: 'Their own copy' })] })
    expect(theirs.body.results[0].status).toBe('created')
    expect((await db.article.findFirstOrThrow({ where: { tenantId: newsroom.tenant.id, externalId: 'WIRE-4' } })).headline).toBe('Wire story 4')
  })
})
