import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { db } from '../../lib/db/client.ts'
import { createId } from '../../lib/ids.ts'
import { flushRequestLog, recordApiRequest } from '../../lib/request-log/record-api-request.ts'
import { listApiRequests } from '../../lib/request-log/list-api-requests.ts'
import { pruneRequestLog } from '../../lib/request-log/prune-request-log.ts'
import { fromStoredEntry, type ApiRequestEntry, type StoredEntry } from '../../lib/request-log/request-log-entry.ts'
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

/** What the log stored for a newsroom (and key), read from its batches as they are. */
async function storedEntries(tenantId: string, tokenId?: string): Promise<ApiRequestEntry[]> {
  const batches = await db.apiRequestBatch.findMany({ where: { tenantId, ...(tokenId && { tokenId }) } })
  return batches.flatMap((batch) => (batch.entries as StoredEntry[]).map((stored) => fromStoredEntry(batch, stored)))
}

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
    const stored = await db.apiRequestBatch.findMany({ where: { tenantId: newsroom.tenant.id } })
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
    const [logged] = (await listApiRequests(newsroom.actor('admin'), { request_id: missing.headers.get('x-request-id')!, limit: 1, offset: 0 })).items
    const tokenId = logged!.tokenId

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
    const tooDeep = await admin.get('/v1/requests?offset=10001')
    expect(tooDeep.status).toBe(422)
    expect(tooDeep.body.errors).toEqual([expect.objectContaining({ field: 'offset', message: 'offset must be 0 to 10000; page further with cursor.' })])
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
    const stored = (await storedEntries(other.tenant.id, 'tok_batch')).sort((a, b) => b.status - a.status)
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
    const stored = await storedEntries(other.tenant.id, 'tok_nul')
    expect(stored.map((entry) => entry.queryKeys).sort()).toEqual([['fine'], ['nulkey']])
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
      const { rows } = await reader.query(
        `SELECT e->>0 AS id, e->>2 AS route, e->3 AS query_keys, (e->>4)::int AS status, e->>5 AS problem_code
         FROM api_request_batches b CROSS JOIN LATERAL json_array_elements(b.entries) AS e WHERE b.tenant_id = $1 ORDER BY status`,
        [spawned.tenant!.id],
      )
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
    const entry = () => ({ id: createId('req'), tenantId: other.tenant.id, tokenId: 'tok_burst', method: 'GET', route: '/v1/articles', queryKeys: [], status: 200, problemCode: null, durationMs: 1, clientAddress: null, createdAt: new Date() })
    for (let i = 0; i < 500; i++) recordApiRequest(entry())
    const writing = flushRequestLog()
    for (let i = 0; i < 734; i++) recordApiRequest(entry())
    await writing
    const deadline = Date.now() + 10_000
    let stored = 0
    while (stored < 1_234 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      stored = (await storedEntries(other.tenant.id, 'tok_burst')).length
    }
    expect(stored).toBe(1_234)
  })

  it('keeps a busy key in batches of at most 500 entries, each holding its own oldest and newest times', async () => {
    const start = Date.now() - 5_000
    const entries = Array.from({ length: 1_234 }, (_, i) => ({ id: createId('req', start + i), tenantId: other.tenant.id, tokenId: 'tok_busy', method: 'GET', route: '/v1/articles', queryKeys: [], status: i % 10 === 0 ? 404 : 200, problemCode: null, durationMs: 1, clientAddress: null, createdAt: new Date(start + i) }))
    for (const entry of entries) recordApiRequest(entry)
    await flushRequestLog()
    const batches = await db.apiRequestBatch.findMany({ where: { tenantId: other.tenant.id, tokenId: 'tok_busy' }, orderBy: { firstAt: 'asc' } })
    expect(batches.map((batch) => batch.entryCount)).toEqual([500, 500, 234])
    expect(batches.map((batch) => [batch.firstAt.getTime() - start, batch.lastAt.getTime() - start])).toEqual([[0, 499], [500, 999], [1_000, 1_233]])
    expect(batches.map((batch) => batch.classCounts[3])).toEqual([50, 50, 24])
    expect((await storedEntries(other.tenant.id, 'tok_busy')).map((stored) => stored.id).sort()).toEqual(entries.map((entry) => entry.id).sort())
  })

  it('reports a batch PostgreSQL refuses, keeps its connection, and writes the next batch', async () => {
    const entry = (tokenId: string) => ({ id: createId('req'), tenantId: other.tenant.id, tokenId, method: 'GET', route: '/v1/articles', queryKeys: [], status: 200, problemCode: null, durationMs: 1, clientAddress: null, createdAt: new Date() })
    // Hold the table so the log's INSERT waits, then cancel it as a statement timeout would.
    const holder = new pg.Client({ connectionString: process.env.DATABASE_URL })
    await holder.connect()
    let writer: number | undefined
    try {
      await holder.query('BEGIN')
      await holder.query('LOCK TABLE api_request_batches IN ACCESS EXCLUSIVE MODE')
      recordApiRequest(entry('tok_refused'))
      const writing = flushRequestLog()
      for (let tries = 0; writer === undefined && tries < 100; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 50))
        const { rows } = await holder.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'INSERT INTO api_request_batches%'`)
        writer = rows[0]?.pid
      }
      expect(writer).toBeDefined()
      await holder.query('SELECT pg_cancel_backend($1)', [writer])
      await writing
    } finally {
      await holder.query('ROLLBACK')
    }
    try {
      // The refused batch's connection was rolled back and kept: its backend is alive and idle.
      const { rows } = await holder.query<{ state: string }>('SELECT state FROM pg_stat_activity WHERE pid = $1', [writer])
      expect(rows).toEqual([{ state: 'idle' }])
    } finally {
      await holder.end()
    }
    recordApiRequest(entry('tok_after_refusal'))
    await flushRequestLog()
    expect(await storedEntries(other.tenant.id, 'tok_refused')).toEqual([])
    expect(await storedEntries(other.tenant.id, 'tok_after_refusal')).toHaveLength(1)
  })

  it('pages newest first across many batches, by cursor and by offset, with the entries and totals a sort of everything recorded gives', async () => {
    const newsroomWithTraffic = await createTestTenant()
    const admin = newsroomWithTraffic.actor('admin')
    // Arrival times spread over four minutes (so batches are split and overlap) and shared to the
    // millisecond by several requests, recorded in six writes of the log.
    let seed = 7
    const next = () => (seed = (seed * 48_271) % 2_147_483_647)
    const start = Date.now() - 3_600_000
    const recorded: ApiRequestEntry[] = []
    for (let write = 0; write < 6; write++) {
      for (let i = 0; i < 120; i++) {
        const at = start + (next() % 240_000)
        const entry = { id: createId('req', at), tenantId: newsroomWithTraffic.tenant.id, tokenId: ['tok_walk_a', 'tok_walk_b'][next() % 2]!, method: 'GET', route: '/v1/articles', queryKeys: [], status: [200, 201, 404, 422, 503][next() % 5]!, problemCode: null, durationMs: 1, clientAddress: null, createdAt: new Date(at) }
        recorded.push(entry)
        recordApiRequest(entry)
      }
      await flushRequestLog()
    }
    const newestFirst = (a: ApiRequestEntry, b: ApiRequestEntry) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1)
    const filters: { token_id?: string; status?: string }[] = [{}, { token_id: 'tok_walk_a' }, { token_id: 'tok_walk_b', status: '4xx' }, { status: '404' }, { status: '2xx' }]
    for (const filter of filters) {
      const expected = recorded
        .filter((entry) => filter.token_id === undefined || entry.tokenId === filter.token_id)
        .filter(({ status }) => filter.status === undefined || (filter.status.endsWith('xx') ? String(status)[0] === filter.status[0] : String(status) === filter.status))
        .sort(newestFirst)
        .map((entry) => entry.id)
      const byCursor: string[] = []
      let cursor: string | undefined
      do {
        const page = await listApiRequests(admin, { ...filter, limit: 37, offset: 0, ...(cursor && { cursor }) })
        expect(page.total).toBe(expected.length)
        byCursor.push(...page.items.map((entry) => entry.id))
        cursor = page.nextCursor ?? undefined
      } while (cursor)
      expect(byCursor).toEqual(expected)
      const byOffset = await listApiRequests(admin, { ...filter, limit: 50, offset: 60 })
      expect(byOffset.items.map((entry) => entry.id)).toEqual(expected.slice(60, 110))
    }
    const sought = recorded[333]!
    const found = await listApiRequests(admin, { request_id: sought.id, limit: 50, offset: 0 })
    expect(found).toMatchObject({ total: 1, items: [sought] })
    // No batch spans more than a minute, however long its entries waited to be written.
    const spans = await db.apiRequestBatch.findMany({ where: { tenantId: newsroomWithTraffic.tenant.id }, select: { firstAt: true, lastAt: true } })
    expect(spans.length).toBeGreaterThan(6 * 2)
    for (const span of spans) expect(span.lastAt.getTime() - span.firstAt.getTime()).toBeLessThanOrEqual(60_000)
  })

  it('offers no next offset past the deepest one a request may name, and goes on by cursor', async () => {
    const busy = await createTestTenant()
    const start = Date.now() - 600_000
    for (let i = 0; i < 10_050; i++) {
      const at = start + i * 10
      recordApiRequest({ id: createId('req', at), tenantId: busy.tenant.id, tokenId: 'tok_deep', method: 'GET', route: '/v1/articles', queryKeys: [], status: 200, problemCode: null, durationMs: 1, clientAddress: null, createdAt: new Date(at) })
    }
    await flushRequestLog()
    const deep = await listApiRequests(busy.actor('admin'), { limit: 20, offset: 9_990 })
    expect(deep).toMatchObject({ total: 10_050, nextOffset: null })
    expect(deep.items).toHaveLength(20)
    const further = await listApiRequests(busy.actor('admin'), { limit: 20, offset: 0, cursor: deep.nextCursor! })
    expect(further.items[0]!.createdAt.getTime()).toBe(deep.items.at(-1)!.createdAt.getTime() - 10)
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
    for (const logged of [old, recent, otherOld, otherRecent]) recordApiRequest({ ...logged, problemCode: null, clientAddress: null })
    await flushRequestLog()
    expect(await pruneRequestLog(now)).toBeGreaterThanOrEqual(2)
    const kept = [...(await storedEntries(newsroom.tenant.id, 'tok_pruned')), ...(await storedEntries(other.tenant.id, 'tok_pruned'))]
    expect(kept.map((entry) => entry.id)).toEqual([recent.id, otherRecent.id])
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
    expect((await storedEntries(stopped.tenant!.id)).filter((entry) => entry.route === '/v1/articles' && entry.status === 201)).toHaveLength(10)

    const killed = await spawnApiServer(process.env.DATABASE_URL!, { tenant: true })
    const ids = await writeTen(killed, 'Written before the kill')
    killed.child.kill('SIGKILL')
    await killed.exited
    // The log is written in batches, so what it had not flushed died with the process (the
    // README says so); the articles were committed before they were acknowledged.
    expect(await db.article.count({ where: { id: { in: ids } } })).toBe(10)
  })
})
