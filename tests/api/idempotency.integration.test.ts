import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { db } from '../../lib/db/client.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let client: ReturnType<typeof apiClient>

beforeAll(async () => {
  server = await startApiServer()
  newsroom = await createTestTenant({ plan: 'enterprise' })
  client = apiClient(server.url, await newsroom.token(['articles:read', 'articles:write', 'webhooks:manage']))
})
afterAll(() => server.close())

const count = (headline: string) => db.article.count({ where: { tenantId: newsroom.tenant.id, headline } })

describe('Idempotency-Key on POST', () => {
  it('replays the first answer for the same key and body, without a second effect', async () => {
    const key = { 'Idempotency-Key': 'create-once-1' }
    const first = await client.post('/v1/articles', { headline: 'Only once' }, key)
    const again = await client.post('/v1/articles', { headline: 'Only once' }, key)
    expect(first.status).toBe(201)
    expect(again.status).toBe(201)
    expect(again.body).toEqual(first.body)
    expect(again.headers.get('location')).toBe(first.headers.get('location'))
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'))
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(first.headers.get('idempotent-replayed')).toBeNull()
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'))
    expect(await count('Only once')).toBe(1)
  })

  it('refuses the same key with a different body (422) and changes nothing', async () => {
    const key = { 'Idempotency-Key': 'create-once-2' }
    await client.post('/v1/articles', { headline: 'First body' }, key)
    const other = await client.post('/v1/articles', { headline: 'Second body' }, key)
    expect(other.status).toBe(422)
    expect(other.body.code).toBe('idempotency_key_reused')
    expect(await count('Second body')).toBe(0)
  })

  it('20 concurrent requests with one key create one article and all get its answer', async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => client.post('/v1/articles', { headline: 'Twenty at once' }, { 'Idempotency-Key': 'concurrent-20' })))
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(201))
    expect(new Set(answers.map((answer) => answer.body.article_id)).size).toBe(1)
    expect(await count('Twenty at once')).toBe(1)
    expect(await db.event.count({ where: { tenantId: newsroom.tenant.id, kind: 'article.created', data: { path: ['article_id'], equals: answers[0]!.body.article_id } } })).toBe(1)
  })

  it('replays failures too, so a refused transition is not retried into a different result', async () => {
    const created = await client.post('/v1/articles', { headline: 'Move me once' })
    const articleId = created.body.article_id
    const path = `/v1/articles/${articleId}/transitions`
    // draft → published is not an allowed move: refused.
    const first = await client.post(path, { to_state: 'published' }, { 'Idempotency-Key': 'move-1' })
    expect(first.status).toBe(409)
    expect(first.body).toMatchObject({ code: 'invalid_transition', from_state: 'draft' })
    expect(first.headers.get('idempotent-replayed')).toBeNull()

    // Now the same request would succeed...
    for (const step of ['in-review', 'approved']) expect((await client.post(path, { to_state: step })).status).toBe(200)
    // ...but a retry with the same key gets the first answer again, and publishes nothing.
    const retried = await client.post(path, { to_state: 'published' }, { 'Idempotency-Key': 'move-1' })
    expect(retried.status).toBe(409)
    expect(retried.headers.get('idempotent-replayed')).toBe('true')
    expect(retried.body).toEqual(first.body)
    const article = await db.article.findUniqueOrThrow({ where: { id: articleId } })
    expect(article.status).toBe('approved')
    expect(article.publishedAt).toBeNull()
    expect(await db.articleTransition.count({ where: { articleId } })).toBe(2)

    // The same body under a new key is a new request, and is carried out.
    const fresh = await client.post(path, { to_state: 'published' }, { 'Idempotency-Key': 'move-2' })
    expect(fresh.status).toBe(200)
    expect(fresh.body.status).toBe('published')
  })

  it('keys are per token, expire after 24 hours, and must be printable ASCII', async () => {
    const otherClient = apiClient(server.url, await newsroom.token(['articles:write']))
    await client.post('/v1/articles', { headline: 'Per token' }, { 'Idempotency-Key': 'shared-key' })
    await otherClient.post('/v1/articles', { headline: 'Per token' }, { 'Idempotency-Key': 'shared-key' })
    expect(await count('Per token')).toBe(2)

    await client.post('/v1/articles', { headline: 'Old key' }, { 'Idempotency-Key': 'old-key' })
    await db.idempotencyRecord.updateMany({ where: { key: 'old-key' }, data: { createdAt: new Date(Date.now() - 25 * 3_600_000) } })
    expect((await client.post('/v1/articles', { headline: 'Old key' }, { 'Idempotency-Key': 'old-key' })).headers.get('idempotent-replayed')).toBeNull()
    expect(await count('Old key')).toBe(2)

    const bad = await client.post('/v1/articles', { headline: 'Bad key' }, { 'Idempotency-Key': 'x'.repeat(256) })
    expect(bad.status).toBe(422)
  })

  it('works on bulk imports and webhook creation', async () => {
    const bulk = { articles: [{ headline: 'Bulk once', external_id: 'IDEM-1' }] }
    const first = await client.post('/v1/articles/bulk', bulk, { 'Idempotency-Key': 'bulk-1' })
    const again = await client.post('/v1/articles/bulk', bulk, { 'Idempotency-Key': 'bulk-1' })
    expect(first.body.created).toBe(1)
    expect(again.body).toEqual(first.body)
    expect((await db.article.findFirstOrThrow({ where: { tenantId: newsroom.tenant.id, externalId: 'IDEM-1' } })).version).toBe(1)

    const webhook = { url: 'https://93.184.216.34/newsroom', events: ['article.published'], secret: 's'.repeat(24) }
    const created = await client.post('/v1/webhooks', webhook, { 'Idempotency-Key': 'hook-1' })
    const replayed = await client.post('/v1/webhooks', webhook, { 'Idempotency-Key': 'hook-1' })
    expect(created.status).toBe(201)
    expect(replayed.body.webhook_id).toBe(created.body.webhook_id)
    expect(await db.webhookSubscription.count({ where: { tenantId: newsroom.tenant.id } })).toBe(1)
  })
})
