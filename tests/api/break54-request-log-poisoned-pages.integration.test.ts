import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { db } from '../../lib/db/client.ts'
import { flushRequestLog } from '../../lib/request-log/record-api-request.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// break54: request-log batches holding lone surrogate escapes (stored before 35c085d), read
// through readableEntries (0a20b5c): filters, cursors, many escapes, a typed "\ud83d" key.

let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant

beforeAll(async () => {
  server = await startApiServer()
  newsroom = await createTestTenant()
})
afterAll(() => server.close())

type Listed = { items: Array<{ request_id: string; status: number; query_keys: string[] }>; next_cursor: string | null; total: number }

describe('poisoned request-log batches', () => {
  it('filters and cursors read every entry once', async () => {
    const reader = apiClient(server.url, await newsroom.token(['articles:read']))
    const sent: string[] = []
    for (let i = 0; i < 12; i++) {
      const answer = await reader.get(`/v1/articles?${i % 2 ? `poison${i}` : 'limit'}=1`)
      sent.push(String(answer.status))
      if (i === 5) await flushRequestLog() // two batches
    }
    // A key typed with a backslash: "\ud83d" as text, not an escape.
    expect((await reader.get('/v1/articles?%5Cud83dtyped=1')).status).toBe(422)
    await flushRequestLog()
    // As the build before 35c085d stored them: many lone halves, high and low, in every batch.
    const changed = await db.$executeRawUnsafe(String.raw`UPDATE api_request_batches SET entries = regexp_replace(entries::text, 'poison(\d+)', 'poison\1\ud83d\udc00x\udbff', 'g')::json WHERE tenant_id = $1`, newsroom.tenant.id)
    expect(changed).toBeGreaterThanOrEqual(2)

    const admin = apiClient(server.url, await newsroom.token(['admin']))
    const all = (await admin.get('/v1/requests?limit=100')) as { status: number; body: Listed }
    expect(all.status).toBe(200)
    const reads = all.body.items.filter((item) => item.query_keys.some((key) => key.startsWith('poison') || key.startsWith('limit') || key.includes('typed')))
    expect(reads).toHaveLength(13)
    expect(reads.filter((item) => item.query_keys.some((key) => key.startsWith('poison'))).every((item) => item.query_keys.every((key) => !key.startsWith('poison') || key.endsWith('\ufffd\ufffdx\ufffd')))).toBe(true)
    console.log('typed key read back as', JSON.stringify(reads.find((item) => item.query_keys.some((key) => key.includes('typed')))?.query_keys))

    // Walk by cursor, 2 a page, with a status filter and without.
    for (const filter of ['', '&status=422', '&status=4xx']) {
      const seen: string[] = []
      let cursor: string | null = null
      for (let page = 0; page < 50; page++) {
        const got = (await admin.get(`/v1/requests?limit=2${filter}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)) as { status: number; body: Listed }
        expect(got.status, `page ${page}${filter}`).toBe(200)
        seen.push(...got.body.items.map((item) => item.request_id))
        cursor = got.body.next_cursor
        if (!cursor) break
      }
      expect(new Set(seen).size, filter).toBe(seen.length)
      const expected = all.body.items.filter((item) => (filter === '&status=422' ? item.status === 422 : filter === '&status=4xx' ? item.status >= 400 && item.status < 500 : true)).map((item) => item.request_id)
      expect(seen, filter).toEqual(expected)
    }
    // Each poisoned entry by its id.
    for (const item of reads) {
      const one = (await admin.get(`/v1/requests?request_id=${item.request_id}`)) as { status: number; body: Listed }
      expect(one.status).toBe(200)
      expect(one.body.items.map((entry) => entry.request_id)).toEqual([item.request_id])
    }
  }, 60_000)
})
