import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { importArticles } from '../../lib/articles/bulk-import.ts'
import { db } from '../../lib/db/client.ts'
import { crashedClaim } from '../support/crashed-claim.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// An instance that dies mid-request leaves its Idempotency-Key claimed. These tests leave a
// key exactly as such an instance would (claimed, the work committed or not, never answered),
// then retry the same request as the client would, and look at what it gets and what exists.
let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let client: ReturnType<typeof apiClient>
let tokenId: string

beforeAll(async () => {
  server = await startApiServer()
  newsroom = await createTestTenant({ plan: 'enterprise' })
  client = apiClient(server.url, await newsroom.token(['articles:read', 'articles:write']))
  tokenId = (await db.apiToken.findFirstOrThrow({ where: { tenantId: newsroom.tenant.id }, orderBy: { createdAt: 'desc' } })).id
})
afterAll(() => server.close())

const bulk = (prefix: string) => ({ articles: [1, 2, 3].map((n) => ({ headline: `${prefix} ${n}`, external_id: `${prefix}-${n}` })) })
const articlesOf = (prefix: string) => db.article.findMany({ where: { tenantId: newsroom.tenant.id, externalId: { startsWith: `${prefix}-` } }, orderBy: { externalId: 'asc' } })
async function createdEvents(ids: string[]): Promise<number> {
  const counts = await Promise.all(ids.map((id) => db.event.count({ where: { tenantId: newsroom.tenant.id, kind: 'article.created', data: { path: ['article_id'], equals: id } } })))
  return counts.reduce((sum, count) => sum + count, 0)
}

/** What a crashed instance leaves: the key claimed by it and, if `commit`, the import committed — and no answer. */
async function crashMidImport(key: string, body: ReturnType<typeof bulk>, commit: boolean): Promise<void> {
  await crashedClaim(tokenId, key, '/v1/articles/bulk', body, commit ? () => importArticles(newsroom.actor('editor'), body.articles, { tokenScopes: ['articles:write', 'media:write'] }) : undefined)
}

describe('Idempotency-Key after the instance holding it crashed', () => {
  it('a retry after a crash past the commit gets the committed answer, and nothing is imported twice', async () => {
    const body = bulk('CRASH-AFTER')
    await crashMidImport('crash-after-commit', body, true)
    const before = await articlesOf('CRASH-AFTER')
    expect(before).toHaveLength(3)

    const startedAt = Date.now()
    const retry = await client.post('/v1/articles/bulk', body, { 'Idempotency-Key': 'crash-after-commit' })
    // The committed answer: all three created, with the ids the crashed attempt stored.
    expect(retry.status).toBe(200)
    // It is the first request's work, answered again: a client can tell it from a fresh import.
    expect(retry.headers.get('idempotent-replayed')).toBe('true')
    expect(retry.body).toMatchObject({ created: 3, updated: 0, failed: 0 })
    expect(retry.body.results.map((result: { article_id: string }) => result.article_id).sort()).toEqual(before.map((article) => article.id).sort())
    // Within the claim's lease (5 s) and the poll, not the old 10 s wait ending in 409.
    expect(Date.now() - startedAt).toBeLessThan(9_000)

    const after = await articlesOf('CRASH-AFTER')
    expect(after.map((article) => [article.id, article.version])).toEqual(before.map((article) => [article.id, 1]))
    expect(await createdEvents(before.map((article) => article.id))).toBe(3)

    // And from then on the key replays that answer.
    const again = await client.post('/v1/articles/bulk', body, { 'Idempotency-Key': 'crash-after-commit' })
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.body).toEqual(retry.body)
  })

  it('a retry after a crash before the commit runs the work, once', async () => {
    const body = bulk('CRASH-BEFORE')
    await crashMidImport('crash-before-commit', body, false)
    expect(await articlesOf('CRASH-BEFORE')).toHaveLength(0)

    const retry = await client.post('/v1/articles/bulk', body, { 'Idempotency-Key': 'crash-before-commit' })
    expect(retry.status).toBe(200)
    // Nothing had committed: this is the work done for the first time, not a replay.
    expect(retry.headers.get('idempotent-replayed')).toBeNull()
    expect(retry.body).toMatchObject({ created: 3, updated: 0, failed: 0 })
    const after = await articlesOf('CRASH-BEFORE')
    expect(after.map((article) => article.version)).toEqual([1, 1, 1])
    expect(await createdEvents(after.map((article) => article.id))).toBe(3)
  })
})
