import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { db } from '../../lib/db/client.ts'
import { createId } from '../../lib/ids.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { stubEnv } from '../support/stub-env.ts'

// The read path an integration mirrors a newsroom with: the updated_at feed, cursors (across
// ties, forged, foreign), and conditional GETs. Changes settle for SYNC_SETTLE_MS before the
// feed shows them; here that is short, so the tests need not wait long.

const settleMs = 400
let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let other: TestTenant
let reader: ReturnType<typeof apiClient>
let writer: ReturnType<typeof apiClient>

beforeAll(async () => {
  stubEnv({ SYNC_SETTLE_MS: String(settleMs) })
  server = await startApiServer()
  ;[newsroom, other] = await Promise.all([createTestTenant({ plan: 'enterprise' }), createTestTenant({ plan: 'enterprise' })])
  reader = apiClient(server.url, await newsroom.token(['articles:read']))
  writer = apiClient(server.url, await newsroom.token(['articles:read', 'articles:write']))
})

afterAll(async () => {
  await server.close()
  vi.unstubAllEnvs()
})

const settle = () => new Promise((resolve) => setTimeout(resolve, settleMs + 100))
type Listed = { article_id: string; version: number; status: string; updated_at: string }

/** Follows next_cursor from `start` until a short page; returns the rows and the last cursor. */
async function follow(client: ReturnType<typeof apiClient>, query: string, start?: string) {
  const rows: Listed[] = []
  let cursor = start
  for (let page = 0; page < 500; page++) {
    const answer = await client.get(`/v1/articles?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
    expect(answer.status, answer.text).toBe(200)
    rows.push(...answer.body.items)
    cursor = answer.body.next_cursor ?? cursor
    if (answer.body.items.length < answer.body.limit) return { rows, cursor }
  }
  throw new Error('The feed never ended.')
}

describe('the changes feed', () => {
  it('lists oldest change first, carries updated_at, and shows an unpublished article again with its new status', async () => {
    const first = await writer.post('/v1/articles', { headline: 'Feed one', status: 'in-review' })
    const second = await writer.post('/v1/articles', { headline: 'Feed two' })
    await settle()
    const since = new Date(Date.parse(first.body.updated_at)).toISOString()
    const feed = `sort=updated_at&limit=50&updated_after=${since}`
    const before = await follow(reader, feed)
    expect(before.rows.map((row) => row.article_id)).toEqual([first.body.article_id, second.body.article_id])
    expect(before.rows[0]!.updated_at).toBe(first.body.updated_at)

    const editor = apiClient(server.url, await newsroom.token(['articles:read', 'articles:write'], 'editor'))
    const path = `/v1/articles/${first.body.article_id}/transitions`
    expect((await editor.post(path, { to_state: 'approved' })).status).toBe(200)
    expect((await editor.post(path, { to_state: 'published' })).status).toBe(200)
    expect((await editor.post(path, { to_state: 'archived' })).status).toBe(200)
    await settle()
    const after = await follow(reader, feed, before.cursor)
    expect(after.rows.map((row) => [row.article_id, row.status])).toEqual([[first.body.article_id, 'archived']])
    // The same cursor again: nothing new, and the cursor comes back so the poll can go on.
    const idle = await reader.get(`/v1/articles?${feed}&cursor=${encodeURIComponent(after.cursor!)}`)
    expect(idle.body).toMatchObject({ items: [], next_cursor: after.cursor })
  })

  it('never loses or repeats a row across pages when many share one updated_at', async () => {
    const tied = new Date('2026-05-05T05:05:05.555Z')
    const ids = Array.from({ length: 13 }, () => createId('art'))
    await db.article.createMany({ data: ids.map((id, i) => ({ id, tenantId: other.tenant.id, headline: `Tied ${i}`, authorId: other.users.writer.id, updatedAt: tied })) })
    const client = apiClient(server.url, await other.token(['articles:read']))
    const { rows } = await follow(client, `sort=updated_at&limit=4&updated_before=2026-05-06T00:00:00Z`)
    expect(rows.map((row) => row.article_id)).toEqual([...ids].sort())
  })

  it('walks the default order by cursor exactly as by offset, unpublished articles last', async () => {
    const client = apiClient(server.url, await other.token(['articles:read']))
    const byOffset: string[] = []
    for (let offset = 0; ; offset += 3) {
      const page = await client.get(`/v1/articles?limit=3&offset=${offset}`)
      byOffset.push(...page.body.items.map((row: Listed) => row.article_id))
      if (page.body.next_offset === null) break
    }
    const byCursor = (await follow(client, 'limit=3')).rows.map((row) => row.article_id)
    expect(byCursor).toEqual(byOffset)
    expect(new Set(byCursor).size).toBe(byCursor.length)
  })

  it('refuses a forged cursor, another query’s, another newsroom’s, and a cursor with an offset, with a 422', async () => {
    const page = await writer.get('/v1/articles?sort=updated_at&limit=1')
    const cursor = page.body.next_cursor as string
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/)
    const [payload, signature] = cursor.split('.')
    const tampered = JSON.parse(Buffer.from(payload!, 'base64url').toString())
    tampered.o = 0
    const forged = `${Buffer.from(JSON.stringify(tampered)).toString('base64url')}.${signature}`
    const theirs = apiClient(server.url, await other.token(['articles:read']))
    for (const [client, query] of [
      [reader, `sort=updated_at&cursor=${forged}`],
      [reader, 'sort=updated_at&cursor=not-a-cursor'],
      [reader, `sort=updated_at&status=draft&cursor=${cursor}`],
      [reader, `cursor=${cursor}`],
      [reader, `sort=updated_at&offset=5&cursor=${cursor}`],
      [theirs, `sort=updated_at&cursor=${cursor}`],
    ] as const) {
      const answer = await client.get(`/v1/articles?${query}`)
      expect(answer.status, query).toBe(422)
      expect(answer.body.code).toBe('validation_failed')
    }
  })

  it('pages a search by cursor when a sort is given, and by offset in relevance order', async () => {
    const client = apiClient(server.url, await other.token(['articles:read', 'articles:write']))
    for (let i = 0; i < 5; i++) expect((await client.post('/v1/articles', { headline: `Harbourmaster report ${i}` })).status).toBe(201)
    await settle()
    const found = await follow(client, 'q=harbourmaster&sort=updated_at&limit=2')
    expect(found.rows).toHaveLength(5)
    const relevance = await client.get('/v1/articles?q=harbourmaster&limit=2')
    expect(relevance.body).toMatchObject({ total: 5, next_offset: 2, next_cursor: null })
    const refused = await client.get(`/v1/articles?q=harbourmaster&cursor=${encodeURIComponent(found.cursor!)}`)
    expect(refused.status).toBe(422)
  })

  it('loses and repeats nothing while articles are written during the sync', async () => {
    const client = apiClient(server.url, await other.token(['articles:read', 'articles:write']))
    const mirror = new Map<string, number>()
    let cursor: string | undefined
    let writing = true
    const written: string[] = []
    const writes = (async () => {
      for (let i = 0; i < 40; i++) {
        const created = await client.post('/v1/articles', { headline: `Written during sync ${i}` })
        written.push(created.body.article_id)
        if (i % 3 === 0 && written.length > 2) await client.patch(`/v1/articles/${written[i - 2]}`, { tags: [`edit-${i}`] })
      }
      writing = false
    })()
    while (writing) {
      const page = await follow(client, 'sort=updated_at&limit=7', cursor)
      for (const row of page.rows) mirror.set(row.article_id, row.version)
      cursor = page.cursor
    }
    await writes
    await settle()
    for (const row of (await follow(client, 'sort=updated_at&limit=7', cursor)).rows) mirror.set(row.article_id, row.version)

    const truth = await db.article.findMany({ where: { tenantId: other.tenant.id }, select: { id: true, version: true } })
    expect(Object.fromEntries(mirror)).toEqual(Object.fromEntries(truth.map((row) => [row.id, row.version])))
  })
})

describe('conditional requests', () => {
  it('answers If-None-Match with 304 and no body for an unchanged article and list, 200 once it changes', async () => {
    const created = await writer.post('/v1/articles', { headline: 'Conditional' })
    const path = `/v1/articles/${created.body.article_id}`
    const first = await reader.get(path)
    expect(first.headers.get('etag')).toBe('"1"')
    expect(first.headers.get('cache-control')).toBe('private, no-cache')
    const unchanged = await reader.get(path, { 'If-None-Match': '"1"' })
    expect(unchanged.status).toBe(304)
    expect(unchanged.text).toBe('')
    expect(unchanged.headers.get('etag')).toBe('"1"')
    expect(unchanged.headers.get('x-request-id')).toMatch(/^req_/)

    const list = await reader.get('/v1/articles?limit=5')
    const listTag = list.headers.get('etag')!
    expect(listTag).toMatch(/^"[A-Za-z0-9_-]+"$/)
    expect((await reader.get('/v1/articles?limit=5', { 'If-None-Match': listTag })).status).toBe(304)

    expect((await writer.patch(path, { tags: ['changed'] })).status).toBe(200)
    const changed = await reader.get(path, { 'If-None-Match': '"1"' })
    expect(changed.status).toBe(200)
    expect(changed.headers.get('etag')).toBe('"2"')
    const listAfter = await reader.get('/v1/articles?limit=5', { 'If-None-Match': listTag })
    expect(listAfter.status).toBe(200)
    expect(listAfter.headers.get('etag')).not.toBe(listTag)
  })

  it('still needs the scope and counts against the rate limit', async () => {
    const created = await writer.post('/v1/articles', { headline: 'Conditional scope' })
    const path = `/v1/articles/${created.body.article_id}`
    const webhooksOnly = apiClient(server.url, await newsroom.token(['webhooks:manage']))
    expect((await webhooksOnly.get(path, { 'If-None-Match': '"1"' })).status).toBe(403)
    const one = await reader.get(path, { 'If-None-Match': '"1"' })
    const two = await reader.get(path, { 'If-None-Match': '"1"' })
    expect([one.status, two.status]).toEqual([304, 304])
    expect(Number(two.headers.get('x-ratelimit-remaining'))).toBe(Number(one.headers.get('x-ratelimit-remaining')) - 1)
  })
})
