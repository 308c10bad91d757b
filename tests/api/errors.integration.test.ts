import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { db } from '../../lib/db/client.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let other: TestTenant
let writeToken: string

function expectProblem(answer: { status: number; headers: Headers; body: any }, status: number, code: string) {
  expect(answer.status).toBe(status)
  expect(answer.headers.get('content-type')).toBe('application/problem+json')
  expect(answer.body).toMatchObject({ status, code, type: expect.any(String), title: expect.any(String), detail: expect.any(String) })
  expect(answer.body.request_id).toMatch(/^req_/)
  expect(answer.headers.get('x-request-id')).toBe(answer.body.request_id)
}

beforeAll(async () => {
  server = await startApiServer()
  newsroom = await createTestTenant()
  other = await createTestTenant()
  writeToken = await newsroom.token(['articles:read', 'articles:write'])
})
afterAll(() => server.close())

describe('every error of the contract, from a real request', () => {
  it('400 malformed_json for a body that is not JSON', async () => {
    const answer = await apiClient(server.url, writeToken).call('POST', '/v1/articles', { rawBody: '{"headline": ', headers: { 'Content-Type': 'application/json' } })
    expectProblem(answer, 400, 'malformed_json')
  })

  it('401 unauthenticated, with WWW-Authenticate, for a missing, malformed, unknown or revoked token', async () => {
    for (const headers of [{} as Record<string, string>, { Authorization: 'Basic dXNlcjpwYXNz' }, { Authorization: 'Bearer nrs_thisTokenDoesNotExistAnywhereAtAllXXXXXXXXXXXXXXXX' }]) {
      const answer = await apiClient(server.url).get('/v1/articles', headers)
      expectProblem(answer, 401, 'unauthenticated')
      expect(answer.headers.get('www-authenticate')).toBe('Bearer realm="newsroom", error="invalid_token"')
    }
    const token = await newsroom.token(['articles:read'])
    expect((await apiClient(server.url, token).get('/v1/articles')).status).toBe(200)
    const { revokeApiToken } = await import('../../lib/tokens/api-tokens.ts')
    const row = await db.apiToken.findFirstOrThrow({ where: { tenantId: newsroom.tenant.id }, orderBy: { createdAt: 'desc' } })
    await revokeApiToken(newsroom.actor('admin'), row.id)
    expectProblem(await apiClient(server.url, token).get('/v1/articles'), 401, 'unauthenticated')
  })

  it("401 once the token's owner is deactivated", async () => {
    const token = await newsroom.token(['articles:read'], 'editor')
    expect((await apiClient(server.url, token).get('/v1/articles')).status).toBe(200)
    await db.user.update({ where: { id: newsroom.users.editor.id }, data: { active: false } })
    const { forgetCachedTokens } = await import('../../lib/tokens/authenticate-token.ts')
    forgetCachedTokens()
    expectProblem(await apiClient(server.url, token).get('/v1/articles'), 401, 'unauthenticated')
    await db.user.update({ where: { id: newsroom.users.editor.id }, data: { active: true } })
  })

  it('403 insufficient_scope names the scope needed', async () => {
    const readOnly = await newsroom.token(['articles:read'])
    const answer = await apiClient(server.url, readOnly).post('/v1/articles', { headline: 'Nope' })
    expectProblem(answer, 403, 'insufficient_scope')
    expect(answer.headers.get('www-authenticate')).toBe('Bearer realm="newsroom", error="insufficient_scope", scope="articles:write"')
  })

  it("404 not_found for a missing article and for another tenant's article alike", async () => {
    const theirs = await apiClient(server.url, await other.token(['articles:write'])).post('/v1/articles', { headline: 'Theirs' })
    expect(theirs.status).toBe(201)
    const client = apiClient(server.url, writeToken)
    expectProblem(await client.get('/v1/articles/art_doesnotexist'), 404, 'not_found')
    const foreign = await client.get(`/v1/articles/${theirs.body.article_id}`)
    expectProblem(foreign, 404, 'not_found')
    expectProblem(await client.patch(`/v1/articles/${theirs.body.article_id}`, { headline: 'Mine now' }), 404, 'not_found')
    expectProblem(await client.post(`/v1/articles/${theirs.body.article_id}/transitions`, { to_state: 'in-review' }), 404, 'not_found')
    expectProblem(await client.get('/v1/no-such-endpoint'), 404, 'not_found')
  })

  it('405 method_not_allowed with an Allow header', async () => {
    const answer = await apiClient(server.url, writeToken).delete('/v1/articles')
    expectProblem(answer, 405, 'method_not_allowed')
    expect(answer.headers.get('allow')).toBe('GET, POST, HEAD, OPTIONS')
  })

  it('OPTIONS names what each route serves; HEAD answers GET without a body; neither finds what does not exist', async () => {
    const client = apiClient(server.url, writeToken)
    const created = await client.post('/v1/articles', { headline: 'Heads up' })
    const options = await client.call('OPTIONS', `/v1/articles/${created.body.article_id}/transitions`)
    expect(options.status).toBe(204)
    expect(options.headers.get('allow')).toBe('POST, OPTIONS')
    const head = await fetch(`${server.url}/v1/articles/${created.body.article_id}`, { method: 'HEAD', headers: { Authorization: `Bearer ${writeToken}` } })
    expect(head.status).toBe(200)
    expect(head.headers.get('etag')).toBe(created.headers.get('etag'))
    expect(await head.text()).toBe('')
    expect((await client.call('OPTIONS', '/v1/no-such-endpoint')).status).toBe(404)
    expect((await fetch(`${server.url}/v1/articles/art_missing`, { method: 'HEAD', headers: { Authorization: `Bearer ${writeToken}` } })).status).toBe(404)
  })

  it('409 invalid_transition with from_state and allowed_to_states', async () => {
    const client = apiClient(server.url, writeToken)
    const created = await client.post('/v1/articles', { headline: 'Straight to print?' })
    const answer = await client.post(`/v1/articles/${created.body.article_id}/transitions`, { to_state: 'published' })
    expectProblem(answer, 409, 'invalid_transition')
    expect(answer.body.from_state).toBe('draft')
    expect(answer.body.allowed_to_states).toEqual(['in-review', 'archived'])
  })

  it('412 precondition_failed when If-Match is stale, and success when it is current', async () => {
    const client = apiClient(server.url, writeToken)
    const created = await client.post('/v1/articles', { headline: 'Versioned' })
    const etag = created.headers.get('etag')!
    expect(etag).toBe('"1"')
    const first = await client.patch(`/v1/articles/${created.body.article_id}`, { headline: 'Versioned, first edit' }, { 'If-Match': etag })
    expect(first.status).toBe(200)
    expect(first.headers.get('etag')).toBe('"2"')
    const stale = await client.patch(`/v1/articles/${created.body.article_id}`, { headline: 'Lost update' }, { 'If-Match': etag })
    expectProblem(stale, 412, 'precondition_failed')
    const staleMove = await client.post(`/v1/articles/${created.body.article_id}/transitions`, { to_state: 'in-review' }, { 'If-Match': etag })
    expectProblem(staleMove, 412, 'precondition_failed')
    expect((await client.get(`/v1/articles/${created.body.article_id}`)).body.headline).toBe('Versioned, first edit')
  })

  it('413 too_many_items for 501 articles and payload_too_large for an oversized body', async () => {
    const client = apiClient(server.url, writeToken)
    const answer = await client.post('/v1/articles/bulk', { articles: Array.from({ length: 501 }, (_, i) => ({ headline: `Item ${i}` })) })
    expectProblem(answer, 413, 'too_many_items')
    const huge = await client.post('/v1/articles', { headline: 'Huge', body: 'x'.repeat(1_100_000) })
    expectProblem(huge, 413, 'payload_too_large')
  })

  it('415 unsupported_media_type for a body that is not JSON', async () => {
    const answer = await apiClient(server.url, writeToken).call('POST', '/v1/articles', { rawBody: 'headline=Hello', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } })
    expectProblem(answer, 415, 'unsupported_media_type')
  })

  it('422 validation_failed lists every field error, unknown fields included', async () => {
    const answer = await apiClient(server.url, writeToken).post('/v1/articles', { headline: '', tags: ['x'.repeat(65)], status: 'published', headlien: 'typo' })
    expectProblem(answer, 422, 'validation_failed')
    const fields = answer.body.errors.map((error: { field: string }) => error.field).sort()
    expect(fields).toEqual(['headlien', 'headline', 'status', 'tags.0'])
    expect(answer.body.errors.find((error: { field: string }) => error.field === 'status').message).toContain('/transitions')
    const query = await apiClient(server.url, writeToken).get('/v1/articles?limit=500&offset=-1&stauts=draft')
    expectProblem(query, 422, 'validation_failed')
    expect(query.body.errors.map((error: { field: string }) => error.field).sort()).toEqual(['limit', 'offset', 'stauts'])
  })

  it('422 for a status sent to PATCH, and 409 for changing an archived article', async () => {
    const client = apiClient(server.url, writeToken)
    const created = await client.post('/v1/articles', { headline: 'To the archive' })
    const id = created.body.article_id
    expectProblem(await client.patch(`/v1/articles/${id}`, { status: 'published' }), 422, 'validation_failed')
    expect((await client.post(`/v1/articles/${id}/transitions`, { to_state: 'archived' })).status).toBe(200)
    const archived = await client.patch(`/v1/articles/${id}`, { headline: 'Edited in the archive' })
    expect(archived.status).toBe(409)
    expect(archived.body.code).toBe('article_archived')
  })
})
