import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant } from '../support/fixtures.ts'

let server: Awaited<ReturnType<typeof startApiServer>>
let client: ReturnType<typeof apiClient>
let articleId: string

beforeAll(async () => {
  server = await startApiServer()
  const newsroom = await createTestTenant({ plan: 'enterprise' })
  client = apiClient(server.url, await newsroom.token(['admin']))
  articleId = (await client.post('/v1/articles', { headline: 'Property target' })).body.article_id
})
afterAll(() => server.close())

const fieldNames = ['headline', 'lede', 'body', 'department_id', 'tags', 'status', 'author_id', 'to_state', 'publish_at', 'external_id', 'articles', 'limit', 'offset', 'tag', 'published_after', 'published_before']
const nastyString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('', ' ', '\u0000', 'null', '-1', '1e309', 'NaN', '9'.repeat(40), '2026-13-45T25:61:00Z', '<script>', "'; DROP TABLE articles; --", 'draft', 'in-review', 'published'),
)
const value = fc.oneof(nastyString, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(nastyString, { maxLength: 4 }), fc.dictionary(nastyString, nastyString, { maxKeys: 3 }))
const body = fc.oneof(
  fc.dictionary(fc.oneof(fc.constantFrom(...fieldNames), fc.string()), value, { maxKeys: 6 }),
  fc.jsonValue({ maxDepth: 3 }),
  fc.record({ articles: fc.array(fc.dictionary(fc.constantFrom(...fieldNames), value, { maxKeys: 5 }), { maxLength: 5 }) }),
)
const query = fc.dictionary(fc.oneof(fc.constantFrom(...fieldNames), fc.string({ maxLength: 8 })), nastyString, { maxKeys: 5 })

describe('whatever a caller sends, the API never answers 5xx', () => {
  it('request bodies on every writing endpoint', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('POST /v1/articles', 'PATCH /v1/articles/:id', 'POST /v1/articles/:id/transitions', 'POST /v1/articles/bulk'), body, async (endpoint, payload) => {
        const [method, path] = endpoint.split(' ') as [string, string]
        const answer = await client.call(method, path.replace(':id', articleId), { body: payload })
        expect(answer.status, `${endpoint} ${JSON.stringify(payload)} → ${answer.text}`).toBeLessThan(500)
        expect(answer.headers.get('x-request-id')).toMatch(/^req_/)
      }),
      { numRuns: 200 },
    )
  })

  it('query strings on the list', async () => {
    await fc.assert(
      fc.asyncProperty(query, async (params) => {
        const answer = await client.get(`/v1/articles?${new URLSearchParams(params)}`)
        expect(answer.status, `${JSON.stringify(params)} → ${answer.text}`).toBeLessThan(500)
        expect([200, 422]).toContain(answer.status)
      }),
      { numRuns: 200 },
    )
  })

  it('raw, broken bodies and odd content types', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 200 }), fc.constantFrom('application/json', 'text/plain', 'application/merge-patch+json', '', 'application/json; charset=latin1'), async (raw, contentType) => {
        const answer = await client.call('POST', '/v1/articles', { rawBody: raw, headers: contentType ? { 'Content-Type': contentType } : {} })
        expect(answer.status, `${JSON.stringify(raw)} as ${contentType} → ${answer.text}`).toBeLessThan(500)
      }),
      { numRuns: 200 },
    )
  })
})
