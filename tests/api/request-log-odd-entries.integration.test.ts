import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { db } from '../../lib/db/client.ts'
import { flushRequestLog } from '../../lib/request-log/record-api-request.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant } from '../support/fixtures.ts'

// The request log (GET /v1/requests) after entries PostgreSQL's json accepts on insert and then
// refuses to take apart (break53, break54): one request from any key, read scope enough, had made
// the newsroom's whole log answer 500 until the batch was pruned (30 days).
// - a query key cut at 64 UTF-16 units through an emoji (request-log-entry.ts cuts between characters);
// - a key that is a NUL (removed when recorded);
// - batches stored before the first fix, with lone \udXXX escapes (list-api-requests.ts reads
//   them as U+FFFD): listed, filtered, paged by cursor, each entry once.
// Each test has its own newsroom: they count and rewrite its batches.

type Listed = { items: Array<{ request_id: string; status: number; query_keys: string[] }>; next_cursor: string | null; total: number }

let server: Awaited<ReturnType<typeof startApiServer>>

beforeAll(async () => {
  server = await startApiServer()
})

afterAll(() => server.close())

describe('the request log after odd entries', () => {
  it('still lists requests after a query key whose 64th code unit is half an emoji', async () => {
    const newsroom = await createTestTenant()
    const reader = apiClient(server.url, await newsroom.token(['articles:read']))
    const key = encodeURIComponent(`${'x'.repeat(63)}😀`)
    expect((await reader.get(`/v1/articles?${key}=1`)).status).toBeLessThan(500)
    await flushRequestLog()

    const admin = apiClient(server.url, await newsroom.token(['admin']))
    const listed = await admin.get('/v1/requests?limit=10')
    expect(listed.status).toBe(200)
    expect(JSON.stringify(listed.body)).not.toContain('\\ud83d')
  })

  it('still lists requests after a query key that is a NUL', async () => {
    const newsroom = await createTestTenant()
    const reader = apiClient(server.url, await newsroom.token(['articles:read']))
    const poisoned = await reader.get('/v1/articles?%00=1')
    expect(poisoned.status).toBeLessThan(500)
    await flushRequestLog()

    const admin = apiClient(server.url, await newsroom.token(['admin']))
    const listed = await admin.get('/v1/requests?limit=10')
    expect(listed.status).toBe(200)
    const filtered = await admin.get(`/v1/requests?limit=10&status=${poisoned.status}`)
    expect(filtered.status).toBe(200)
  })

  it('lists a batch stored with a lone surrogate escape, the half character read as U+FFFD', async () => {
    const newsroom = await createTestTenant()
    const reader = apiClient(server.url, await newsroom.token(['articles:read']))
    // An unknown parameter is refused (422), and logged with its name as any request is.
    expect((await reader.get('/v1/articles?poisonedkey=1')).status).toBe(422)
    await flushRequestLog()
    // As the build before the fix stored it: the key's last character half an emoji.
    const changed = await db.$executeRaw`UPDATE api_request_batches SET entries = replace(entries::text, 'poisonedkey', 'poisonedkey\\ud83d')::json WHERE tenant_id = ${newsroom.tenant.id}`
    expect(changed).toBe(1)

    const admin = apiClient(server.url, await newsroom.token(['admin']))
    const listed = await admin.get('/v1/requests?limit=10')
    expect(listed.status).toBe(200)
    expect(JSON.stringify(listed.body)).toContain('poisonedkey\ufffd')
    const filtered = await admin.get('/v1/requests?limit=10&status=422')
    expect(filtered.status).toBe(200)
    expect(JSON.stringify(filtered.body)).toContain('poisonedkey\ufffd')
  })

  it('filters and cursors over batches with many lone escapes read every entry once', async () => {
    const newsroom = await createTestTenant()
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
    // As the build before the key fix stored them: a lone low half, a pair and a lone high half in every poisoned key.
    const changed = await db.$executeRawUnsafe(String.raw`UPDATE api_request_batches SET entries = regexp_replace(entries::text, 'poison(\d+)', 'poison\1\udc01\ud83d\udc00x\udbff', 'g')::json WHERE tenant_id = $1`, newsroom.tenant.id)
    expect(changed).toBeGreaterThanOrEqual(2)

    const admin = apiClient(server.url, await newsroom.token(['admin']))
    const all = (await admin.get('/v1/requests?limit=100')) as { status: number; body: Listed }
    expect(all.status).toBe(200)
    const reads = all.body.items.filter((item) => item.query_keys.some((key) => key.startsWith('poison') || key.startsWith('limit') || key.includes('typed')))
    expect(reads).toHaveLength(13)
    expect(reads.filter((item) => item.query_keys.some((key) => key.startsWith('poison'))).every((item) => item.query_keys.every((key) => !key.startsWith('poison') || key.endsWith('\ufffd\ufffd\ufffdx\ufffd')))).toBe(true)

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
