import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { stubEnv } from '../support/stub-env.ts'

// GET /v1/departments: where an integrator looks up the ids that article filters and webhook
// filters take, with the key they read articles with.

let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let other: TestTenant

beforeAll(async () => {
  stubEnv({ WEBHOOK_SECRET_KEY: 'departments-test-key' })
  ;[server, newsroom, other] = await Promise.all([startApiServer(), createTestTenant(), createTestTenant()])
})
afterAll(() => server.close())

describe('GET /v1/departments', () => {
  it("lists the newsroom's departments by name with the ids the filters take, and no other newsroom's", async () => {
    const sport = newsroom.departments.find((department) => department.name === 'Sport')!
    const writer = apiClient(server.url, await newsroom.token(['articles:read', 'articles:write']))
    expect((await writer.post('/v1/articles', { headline: 'Derby tonight', department_id: sport.id })).status).toBe(201)

    const reader = apiClient(server.url, await newsroom.token(['articles:read']))
    const answer = await reader.get('/v1/departments')
    expect(answer.status).toBe(200)
    expect(answer.body.items.map((department: { name: string }) => department.name)).toEqual(['News', 'Sport'])
    expect(answer.body.items[1]).toEqual({ department_id: sport.id, name: 'Sport', article_count: 1, created_at: expect.stringMatching(/Z$/) })
    const otherIds = other.departments.map((department) => department.id)
    expect(answer.body.items.map((department: { department_id: string }) => department.department_id)).not.toContain(otherIds[0])

    // The id is the one the article filter takes.
    const filtered = await reader.get(`/v1/articles?department_id=${answer.body.items[1].department_id}`)
    expect(filtered.body.items.map((article: { headline: string }) => article.headline)).toEqual(['Derby tonight'])
  })

  it('is read with articles:read or webhooks:manage (the ids webhook filters take), or admin; another key is refused with the scopes named', async () => {
    const hooks = apiClient(server.url, await newsroom.token(['webhooks:manage']))
    const read = await hooks.get('/v1/departments')
    expect(read.status).toBe(200)
    expect(read.body.items.map((department: { name: string }) => department.name)).toEqual(['News', 'Sport'])
    const refused = await apiClient(server.url, await newsroom.token(['events:read'])).get('/v1/departments')
    expect(refused.status).toBe(403)
    expect(refused.body.detail).toContain('articles:read or webhooks:manage')
    expect((await apiClient(server.url, await newsroom.token(['admin'])).get('/v1/departments')).status).toBe(200)
  })

  it('names a query parameter it does not take', async () => {
    const answer = await apiClient(server.url, await newsroom.token(['articles:read'])).get('/v1/departments?limit=10')
    expect(answer.status).toBe(422)
    expect(answer.body.code).toBe('validation_failed')
    expect(answer.body.errors.map((error: { field: string }) => error.field)).toContain('limit')
  })
})
