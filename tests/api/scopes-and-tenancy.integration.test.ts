import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

let server: Awaited<ReturnType<typeof startApiServer>>
let alpha: TestTenant
let beta: TestTenant
let alphaArticle: string
let betaArticle: string

beforeAll(async () => {
  server = await startApiServer()
  alpha = await createTestTenant()
  beta = await createTestTenant()
  alphaArticle = (await apiClient(server.url, await alpha.token(['admin'])).post('/v1/articles', { headline: 'Alpha only', tags: ['shared-tag'] })).body.article_id
  betaArticle = (await apiClient(server.url, await beta.token(['admin'])).post('/v1/articles', { headline: 'Beta only', tags: ['shared-tag'] })).body.article_id
})
afterAll(() => server.close())

const endpoints = (id: string) => [
  { name: 'list', scope: 'articles:read', call: (c: ReturnType<typeof apiClient>) => c.get('/v1/articles') },
  { name: 'get', scope: 'articles:read', call: (c: ReturnType<typeof apiClient>) => c.get(`/v1/articles/${id}`) },
  { name: 'create', scope: 'articles:write', call: (c: ReturnType<typeof apiClient>) => c.post('/v1/articles', { headline: 'Scoped' }) },
  { name: 'update', scope: 'articles:write', call: (c: ReturnType<typeof apiClient>) => c.patch(`/v1/articles/${id}`, { tags: ['touched'] }) },
  { name: 'transition', scope: 'articles:write', call: (c: ReturnType<typeof apiClient>) => c.post(`/v1/articles/${id}/transitions`, { to_state: 'in-review' }) },
  { name: 'bulk', scope: 'articles:write', call: (c: ReturnType<typeof apiClient>) => c.post('/v1/articles/bulk', { articles: [{ headline: 'Bulk scoped' }] }) },
]

describe('scopes', () => {
  for (const endpoint of endpoints('placeholder')) {
    it(`${endpoint.name} needs ${endpoint.scope}; other scopes get 403, admin gets through`, async () => {
      const others = ['articles:read', 'articles:write', 'media:read', 'media:write', 'analytics:read', 'webhooks:manage'].filter((scope) => scope !== endpoint.scope)
      // A fresh article for every call, so each call's move is allowed on its own.
      const callWith = async (scopes: string[]) => {
        const fresh = await apiClient(server.url, await alpha.token(['admin'])).post('/v1/articles', { headline: `Target of ${endpoint.name}` })
        const target = endpoints(fresh.body.article_id).find((candidate) => candidate.name === endpoint.name)!
        return target.call(apiClient(server.url, await alpha.token(scopes)))
      }
      const lacking = await callWith(others)
      expect(lacking.status).toBe(403)
      expect(lacking.body.code).toBe('insufficient_scope')
      expect((await callWith([endpoint.scope])).status).toBeLessThan(300)
      expect((await callWith(['admin'])).status).toBeLessThan(300)
    })
  }
})

describe('two tenants', () => {
  it("never shows or changes the other tenant's articles", async () => {
    const alphaClient = apiClient(server.url, await alpha.token(['admin']))
    const list = await alphaClient.get('/v1/articles?tag=shared-tag')
    expect(list.body.items.map((item: { article_id: string }) => item.article_id)).toEqual([alphaArticle])
    for (const endpoint of endpoints(betaArticle).filter((candidate) => ['get', 'update', 'transition'].includes(candidate.name))) {
      const answer = await endpoint.call(alphaClient)
      expect(answer.status, endpoint.name).toBe(404)
    }
    const betaView = await apiClient(server.url, await beta.token(['articles:read'])).get(`/v1/articles/${betaArticle}`)
    expect(betaView.body).toMatchObject({ headline: 'Beta only', status: 'draft', tags: ['shared-tag'], version: 1 })
  })

  it("refuses another tenant's department and author ids", async () => {
    const alphaClient = apiClient(server.url, await alpha.token(['admin']))
    const answer = await alphaClient.post('/v1/articles', { headline: 'Borrowed desk', department_id: beta.departments[0]!.id, author_id: beta.users.writer.id })
    expect(answer.status).toBe(422)
    expect(answer.body.errors.map((error: { field: string }) => error.field).sort()).toEqual(['author_id', 'department_id'])
  })
})
