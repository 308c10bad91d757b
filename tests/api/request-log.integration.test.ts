import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { db } from '../../lib/db/client.ts'
import { createId } from '../../lib/ids.ts'
import { flushRequestLog, recordApiRequest } from '../../lib/request-log/record-api-request.ts'
import { pruneRequestLog } from '../../lib/request-log/prune-request-log.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { startMigratedEmbeddedDatabase } from '../support/embedded-database.ts'
import { spawnApiServer } from '../support/spawn-api-server.ts'

// The request log an integration developer reads after a 4xx: every /v1 request of a key,
// found by its request id, filtered by status; never a query value; each newsroom sees its own.

let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let other: TestTenant

beforeAll(async () => {
  server = await startApiServer()
  ;[newsroom, other] = await Promise.all([createTestTenant(), createTestTenant()])
})

afterAll(() => server.close())

describe('the API request log', () => {
  it('finds a failed request by its request id, with route, query keys and problem code but no query values', async () => {
    const readToken = await newsroom.token(['articles:read'])
    const failed = await apiClient(server.url, readToken).get('/v1/articles?status=bogus&api_key=sk_live_do_not_keep&limit=5')
    expect(failed.status).toBe(422)
    const requestId = failed.body.request_id as string
    await flushRequestLog()

    const admin = apiClient(server.url, await newsroom.token(['admin']))
    const found = await admin.get(`/v1/requests?request_id=${requestId}`)
    expect(found.status).toBe(200)
    expect(found.body).toMatchObject({ total: 1, next_offset: null })
    expect(found.body.items[0]).toMatchObject({
      request_id: requestId,
      token_id: expect.stringMatching(/^tok_/),
      method: 'GET',
      route: '/v1/articles',
      query_keys: ['api_key', 'limit', 'status'],
      status: 422,
      problem_code: 'validation_failed',
      duration_ms: expect.any(Number),
      client_address: '127.0.0.1',
    })
    const stored = await db.apiRequest.findMany({ where: { tenantId: newsroom.tenant.id } })
    expect(JSON.stringify(stored)).not.toMatch(/sk_live_do_not_keep|bogus/)
    expect(JSON.stringify(stored)).not.toContain(readToken)
  })

  it('filters by key and status class, newest first, and pages', async () => {
    const writer = apiClient(server.url, await newsroom.token(['articles:read', 'articles:write']))
    const created = await writer.post('/v1/articles', { headline: 'Logged create' })
    expect(created.status).toBe(201)
    const missing = await writer.get('/v1/articles/art_missing')
    expect(missing.status).toBe(404)
    await flushRequestLog()
    const tokenId = (await db.apiRequest.findUniqueOrThrow({ where: { id: missing.headers.get('x-request-id')! } })).tokenId

    const admin = apiClient(server.url, await newsroom.token(['admin']))
    const all = await admin.get(`/v1/requests?token_id=${tokenId}`)
    expect(all.body.items.map((item: { route: string; status: number }) => [item.route, item.status])).toEqual([
      ['/v1/articles/{id}', 404],
      ['/v1/articles', 201],
    ])
    const failures = await admin.get(`/v1/requests?token_id=${tokenId}&status=4xx`)
    expect(failures.body.items.map((item: { status: number; problem_code: string }) => [item.status, item.problem_code])).toEqual([[404, 'not_found']])
    const firstPage = await admin.get(`/v1/requests?token_id=${tokenId}&limit=1`)
    expect(firstPage.body).toMatchObject({ total: 2, next_offset: 1 })
    expect((await admin.get('/v1/requests?status=4x')).status).toBe(422)
  })

  it("shows each newsroom only its own requests, and needs the admin scope", async () => {
    const mine = await apiClient(server.url, await newsroom.token(['articles:read'])).get('/v1/articles')
    await flushRequestLog()
    const requestId = mine.headers.get('x-request-id')!
    const otherAdmin = apiClient(server.url, await other.token(['admin']))
    expect((await otherAdmin.get(`/v1/requests?request_id=${requestId}`)).body).toMatchObject({ total: 0, items: [] })
    const notAdmin = await apiClient(server.url, await newsroom.token(['articles:read', 'articles:write', 'webhooks:manage'])).get('/v1/requests')
    expect(notAdmin.status).toBe(403)
    expect(notAdmin.body.code).toBe('insufficient_scope')
  })

  it('stores every field of a batch as recorded, query keys with quotes, commas, braces, tabs and line breaks included', async () => {
    const at = new Date('2026-11-20T10:11:12.345Z')
    const entries = [
      { queryKeys: ['a"b', 'c,d', '{x}', 'back\\slash', 'NULL', '', 'tab\there', 'two\nlines', '\\N', 'with space'], problemCode: 'validation_failed', clientAddress: '203.0.113.9', durationMs: 12.6, status: 422 },
      { queryKeys: [], problemCode: null, clientAddress: null, durationMs: 0.4, status: 200 },
    ].map((fields, index) => ({ id: createId('req'), tenantId: other.tenant.id, tokenId: 'tok_batch', method: index ? 'PATCH' : 'GET', route: '/v1/articles/{id}', createdAt: at, ...fields }))
    for (const entry of entries) recordApiRequest(entry)
    await flushRequestLog()
    const stored = await db.apiRequest.findMany({ where: { tokenId: 'tok_batch' }, orderBy: { status: 'desc' } })
    expect(stored).toEqual(entries.map((entry) => ({ ...entry, durationMs: Math.round(entry.durationMs) })))
  })

  it('stores a query key that decodes to a NUL without it, and the rest of its batch with it', async () => {
    const entries = [['nul\u0000key'], ['fine']].map((queryKeys) => ({
      id: createId('req'),
      tenantId: other.tenant.id,
      tokenId: 'tok_nul',
      method: 'GET',
      route: '/v1/articles',
      queryKeys,
      status: 200,
      problemCode: null,
      durationMs: 1,
      clientAddress: null,
      createdAt: new Date(),
    }))
    for (const entry of entries) recordApiRequest(entry)
    await flushRequestLog()
    const stored = await db.apiRequest.findMany({ where: { tokenId: 'tok_nul' }, select: { queryKeys: true } })
    expect(stored.map((row) => row.queryKeys).sort()).toEqual([['fine'], ['nulkey']])
  })

  it('records on the embedded database as npm run dev runs it (which takes the batch another way), odd query keys included', async () => {
    const embedded = await startMigratedEmbeddedDatabase()
    try {
      const spawned = await spawnApiServer(embedded.url, { tenant: true, timeoutMs: 60_000 })
      const client = apiClient(spawned.url, spawned.tenant!.token)
      expect((await client.get('/v1/articles?limit=5')).status).toBe(200)
      // Unknown parameters are refused, and their names are what the log keeps.
      const refused = await client.get('/v1/articles?a%22b=1&c,d=2&nul%00key=3&two%0Alines=4')
      expect(refused.status).toBe(422)
      await spawned.stop() // flushes the log
      const reader = new pg.Client({ connectionString: embedded.url })
      await reader.connect()
      const { rows } = await reader.query('SELECT id, route, query_keys, status, problem_code FROM api_requests WHERE tenant_id = $1 ORDER BY status', [spawned.tenant!.id])
      await reader.end()
      expect(rows).toEqual([
        { id: expect.stringMatching(/^req_/), route: '/v1/articles', query_keys: ['limit'], status: 200, problem_code: null },
        { id: refused.body.request_id, route: '/v1/articles', query_keys: ['a"b', 'c,d', 'nulkey', 'two\nlines'], status: 422, problem_code: 'validation_failed' },
      ])
    } finally {
      await embedded.stop()
    }
  }, 120_000)

  it('writes entries that arrive while a batch is being written, in later batches, without being asked', async () => {
    const count = 1_234
    for (let i = 0; i < count; i++) {
      recordApiRequest({ id: createId('req'), tenantId: other.tenant.id, tokenId: 'tok_burst', method: 'GET', route: '/v1/articles', queryKeys: [], status: 200, problemCode: null, durationMs: 1, clientAddress: null, createdAt: new Date() })
    }
    const deadline = Date.now() + 10_000
    let stored = 0
    while (stored < count && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      stored = await db.apiRequest.count({ where: { tokenId: 'tok_burst' } })
    }
    expect(stored).toBe(count)
  })

  it('prunes entries past the retention period in every newsroom and keeps the rest', async () => {
    const now = new Date()
    const entry = (daysAgo: number, tenantId = newsroom.tenant.id) => ({
      id: createId('req'),
      tenantId,
      tokenId: 'tok_pruned',
      method: 'GET',
      route: '/v1/articles',
      queryKeys: [],
      status: 200,
      durationMs: 3,
      createdAt: new Date(now.getTime() - daysAgo * 86_400_000),
    })
    const old = entry(31)
    const recent = entry(29)
    const otherOld = entry(45, other.tenant.id)
    const otherRecent = entry(1, other.tenant.id)
    await db.apiRequest.createMany({ data: [old, recent, otherOld, otherRecent] })
    expect(await pruneRequestLog(now)).toBeGreaterThanOrEqual(2)
    const kept = await db.apiRequest.findMany({ where: { tokenId: 'tok_pruned' }, select: { id: true }, orderBy: { createdAt: 'asc' } })
    expect(kept).toEqual([{ id: recent.id }, { id: otherRecent.id }])
  })

  it('writes what it buffered when the server stops, and never loses an acknowledged article when it is killed', async () => {
    const writeTen = async (spawned: Awaited<ReturnType<typeof spawnApiServer>>, label: string) => {
      const client = apiClient(spawned.url, spawned.tenant!.token)
      const ids: string[] = []
      for (let i = 0; i < 10; i++) {
        const answer = await client.post('/v1/articles', { headline: `${label} ${i}` })
        expect(answer.status).toBe(201)
        ids.push(answer.body.article_id)
      }
      return ids
    }

    const stopped = await spawnApiServer(process.env.DATABASE_URL!, { tenant: true })
    await writeTen(stopped, 'Written before a stop')
    await stopped.stop()
    expect(await db.apiRequest.count({ where: { tenantId: stopped.tenant!.id, route: '/v1/articles', status: 201 } })).toBe(10)

    const killed = await spawnApiServer(process.env.DATABASE_URL!, { tenant: true })
    const ids = await writeTen(killed, 'Written before the kill')
    killed.child.kill('SIGKILL')
    await killed.exited
    // The log is written in batches, so what it had not flushed died with the process (the
    // README says so); the articles were committed before they were acknowledged.
    expect(await db.article.count({ where: { id: { in: ids } } })).toBe(10)
  })
})
