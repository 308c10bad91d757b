import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// "Local", "local" and "LOCAL" are one tag: an article keeps the first spelling it is sent, and
// the tag filter finds every spelling.

let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let client: ReturnType<typeof apiClient>

beforeAll(async () => {
  server = await startApiServer()
  newsroom = await createTestTenant()
  client = apiClient(server.url, await newsroom.token(['articles:read', 'articles:write']))
})
afterAll(() => server.close())

describe('tags', () => {
  it('drops later spellings of a tag on create, PATCH and bulk import, keeping the first and the order sent', async () => {
    const created = await client.post('/v1/articles', { headline: 'Tags', tags: ['Local', 'politics', ' local ', 'LOCAL', 'Politics', 'Sport'] })
    expect(created.status).toBe(201)
    expect(created.body.tags).toEqual(['Local', 'politics', 'Sport'])

    const patched = await client.patch(`/v1/articles/${created.body.article_id}`, { tags: ['SPORT', 'sport', 'Transport'] })
    expect(patched.status).toBe(200)
    expect(patched.body.tags).toEqual(['SPORT', 'Transport'])

    const imported = await client.post('/v1/articles/bulk', { articles: [{ external_id: `tags-${Date.now()}`, headline: 'Wire copy', tags: ['AP', 'ap', 'Ap'] }] })
    expect(imported.status).toBe(200)
    const [result] = imported.body.results as { article_id: string }[]
    const stored = await client.get(`/v1/articles/${result!.article_id}`)
    expect(stored.body.tags).toEqual(['AP'])
  })

  it('finds an article by any spelling of its tag, and only articles with that tag', async () => {
    const marker = `Harbour${Date.now()}`
    const upper = await client.post('/v1/articles', { headline: 'Upper', tags: [marker.toUpperCase()] })
    const mixed = await client.post('/v1/articles', { headline: 'Mixed', tags: [marker, 'other'] })
    await client.post('/v1/articles', { headline: 'Elsewhere', tags: [`${marker}x`] })
    for (const spelling of [marker, marker.toLowerCase(), marker.toUpperCase()]) {
      const found = await client.get(`/v1/articles?tag=${encodeURIComponent(spelling)}`)
      expect(found.status).toBe(200)
      expect(found.body.total).toBe(2)
      expect((found.body.items as { article_id: string }[]).map((item) => item.article_id).sort()).toEqual([upper.body.article_id, mixed.body.article_id].sort())
    }
  })
})
