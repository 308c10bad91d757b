import { Validator } from '@seriousme/openapi-schema-validator'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { oas31 } from 'zod-openapi'
import { buildOpenApiDocument } from '../../lib/api/openapi/openapi-document.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

type Operation = oas31.OperationObject & { 'x-required-scope'?: string }

let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant

const document = buildOpenApiDocument()

/** Every authenticated operation, with its path parameters filled in with ids that do not exist. */
function authenticatedOperations(): { method: string; path: string; operation: Operation }[] {
  return Object.entries(document.paths ?? {}).flatMap(([template, item]) =>
    (['get', 'post', 'put', 'patch', 'delete'] as const).flatMap((method) => {
      const operation = item[method] as Operation | undefined
      if (!operation?.['x-required-scope']) return []
      return [{ method: method.toUpperCase(), path: template.replace(/\{([^}]+)\}/g, 'missing_$1'), operation }]
    }),
  )
}

function documentedHeaders(operation: Operation, status: string): string[] {
  const response = operation.responses?.[status] as oas31.ResponseObject | undefined
  return Object.keys(response?.headers ?? {})
}

beforeAll(async () => {
  server = await startApiServer()
  newsroom = await createTestTenant()
})
afterAll(() => server.close())

describe('GET /v1/openapi.json', () => {
  it('serves the document without a token, as cacheable JSON with a request id', async () => {
    const answer = await apiClient(server.url).get('/v1/openapi.json')
    expect(answer.status).toBe(200)
    expect(answer.headers.get('content-type')).toBe('application/json')
    expect(answer.headers.get('x-request-id')).toMatch(/^req_/)
    expect(answer.headers.get('cache-control')).toBe('public, max-age=300')
    expect(answer.headers.get('etag')).toMatch(/^"[\w-]+"$/)
    expect(answer.body).toEqual(JSON.parse(JSON.stringify(document)))

    const result = await new Validator().validate(answer.body)
    expect(result.errors).toBeUndefined()
    expect(result.valid).toBe(true)
  })

  it('answers 304 to a client that has the current version', async () => {
    const client = apiClient(server.url)
    const etag = (await client.get('/v1/openapi.json')).headers.get('etag')!
    const again = await client.get('/v1/openapi.json', { 'If-None-Match': etag })
    expect(again.status).toBe(304)
    expect(again.text).toBe('')
    expect(again.headers.get('etag')).toBe(etag)
    expect((await client.get('/v1/openapi.json', { 'If-None-Match': '"stale"' })).status).toBe(200)
  })

  it('refuses other methods with a 405 problem naming GET', async () => {
    const answer = await apiClient(server.url).post('/v1/openapi.json', {})
    expect(answer.status).toBe(405)
    expect(answer.headers.get('content-type')).toBe('application/problem+json')
    expect(answer.headers.get('allow')).toBe('GET, HEAD, OPTIONS')
    expect(answer.body.code).toBe('method_not_allowed')
  })
})

describe('the document against the running API', () => {
  it('documents the 401 every authenticated operation answers without a token', async () => {
    const operations = authenticatedOperations()
    expect(operations.length).toBeGreaterThan(5)
    for (const { method, path, operation } of operations) {
      const answer = await apiClient(server.url).call(method, path, method === 'GET' || method === 'DELETE' ? {} : { body: {} })
      expect(answer.status, `${method} ${path}`).toBe(401)
      expect(answer.body.type).toBe('/docs/api#error-unauthenticated')
      for (const header of documentedHeaders(operation, '401')) expect(answer.headers.has(header), `${method} ${path}: ${header}`).toBe(true)
    }
  })

  it('names in x-required-scope the scope each operation really requires', async () => {
    // analytics:read: a scope no operation requires (yet).
    const client = apiClient(server.url, await newsroom.token(['analytics:read']))
    for (const { method, path, operation } of authenticatedOperations()) {
      const answer = await client.call(method, path, method === 'GET' || method === 'DELETE' ? {} : { body: {} })
      expect(answer.status, `${method} ${path}`).toBe(403)
      expect(answer.headers.get('www-authenticate'), `${method} ${path}`).toBe(
        `Bearer realm="newsroom", error="insufficient_scope", scope="${operation['x-required-scope']}"`,
      )
      for (const header of documentedHeaders(operation, '403')) expect(answer.headers.has(header), `${method} ${path}: ${header}`).toBe(true)
    }
  })

  it('sends the headers documented for successful article responses', async () => {
    const client = apiClient(server.url, await newsroom.token(['articles:read', 'articles:write']))
    const articles = document.paths!['/v1/articles']!
    const created = await client.post('/v1/articles', { headline: 'Documented headers' })
    expect(created.status).toBe(201)
    for (const header of documentedHeaders(articles.post as Operation, '201')) expect(created.headers.has(header), `201 ${header}`).toBe(true)
    expect(created.headers.get('location')).toBe(`/v1/articles/${created.body.article_id}`)

    const one = await client.get(`/v1/articles/${created.body.article_id}`)
    const getOne = document.paths!['/v1/articles/{article_id}']!.get as Operation
    for (const header of documentedHeaders(getOne, '200')) expect(one.headers.has(header), `200 ${header}`).toBe(true)

    const list = await client.get('/v1/articles')
    for (const header of documentedHeaders(articles.get as Operation, '200')) expect(list.headers.has(header), `list ${header}`).toBe(true)
  })
})
