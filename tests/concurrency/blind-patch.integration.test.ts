import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { db } from '../../lib/db/client.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// A PATCH without If-Match is last-writer-wins: however many land on one article at once, each
// is applied, as its own version with its own article.updated event.

let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let client: ReturnType<typeof apiClient>

beforeAll(async () => {
  server = await startApiServer()
  newsroom = await createTestTenant()
  client = apiClient(server.url, await newsroom.token(['articles:read', 'articles:write']))
})
afterAll(() => server.close())

describe('20 concurrent blind PATCHes on one article', () => {
  it('all answer 200, each with its own version, and each records one article.updated', async () => {
    const created = await client.post('/v1/articles', { headline: 'Contested' })
    const id = created.body.article_id
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => client.patch(`/v1/articles/${id}`, { headline: `Writer ${i}`, tags: [`w${i}`] })))

    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200))
    answers.forEach((answer, i) => expect(answer.body).toMatchObject({ headline: `Writer ${i}`, tags: [`w${i}`] }))
    const versions = answers.map((answer) => answer.body.version).sort((a, b) => a - b)
    expect(versions).toEqual(Array.from({ length: 20 }, (_, i) => i + 2))

    const final = await client.get(`/v1/articles/${id}`)
    expect(final.body.version).toBe(21)
    const last = answers.find((answer) => answer.body.version === 21)!
    expect(final.body.headline).toBe(last.body.headline)

    const events = await db.event.findMany({ where: { tenantId: newsroom.tenant.id, kind: 'article.updated', data: { path: ['article_id'], equals: id } } })
    expect(events.map((event) => (event.data as { version: number }).version).sort((a, b) => a - b)).toEqual(versions)
  })
})
