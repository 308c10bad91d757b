import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { db, sqlPool } from '../../lib/db/client.ts'
import { createId } from '../../lib/ids.ts'
import { signCursor } from '../../lib/signed-cursor.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { followFeed as follow, mirrorWhileWriting, type FeedRow as Listed } from '../support/changes-feed.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// The read path an integration mirrors a newsroom with: the updated_at feed, cursors (across
// ties, forged, foreign), and conditional GETs. The feed lists a change as soon as every write
// transaction that could come before it has ended (lib/articles/changes-feed.ts): no test here
// waits for it, each reads the next page as soon as the writes it expects were answered.

let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let other: TestTenant
let reader: ReturnType<typeof apiClient>
let writer: ReturnType<typeof apiClient>

beforeAll(async () => {
  server = await startApiServer()
  ;[newsroom, other] = await Promise.all([createTestTenant({ plan: 'enterprise' }), createTestTenant({ plan: 'enterprise' })])
  reader = apiClient(server.url, await newsroom.token(['articles:read']))
  writer = apiClient(server.url, await newsroom.token(['articles:read', 'articles:write']))
})

afterAll(async () => {
  await server.close()
})

const ids = (rows: Listed[]) => rows.map((row) => row.article_id)

describe('the changes feed', () => {
  it('lists oldest change first, carries updated_at, and shows an unpublished article again with its new status', async () => {
    const first = await writer.post('/v1/articles', { headline: 'Feed one', status: 'in-review' })
    const second = await writer.post('/v1/articles', { headline: 'Feed two' })
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
    const found = await follow(client, 'q=harbourmaster&sort=updated_at&limit=2')
    expect(found.rows).toHaveLength(5)
    const relevance = await client.get('/v1/articles?q=harbourmaster&limit=2')
    expect(relevance.body).toMatchObject({ total: 5, next_offset: 2, next_cursor: null })
    const refused = await client.get(`/v1/articles?q=harbourmaster&cursor=${encodeURIComponent(found.cursor!)}`)
    expect(refused.status).toBe(422)
  })

  it('loses and repeats nothing while articles are written during the sync', async () => {
    const client = apiClient(server.url, await other.token(['articles:read', 'articles:write']))
    const { mirror, repeated } = await mirrorWhileWriting(client, { writers: 3, articlesEach: 15 })
    const truth = await db.article.findMany({ where: { tenantId: other.tenant.id }, select: { id: true, version: true } })
    expect(mirror).toEqual(Object.fromEntries(truth.map((row) => [row.id, row.version])))
    expect(repeated).toEqual([])
  })

  it('shows a change on the next page as soon as its writer is answered', async () => {
    const { cursor } = await follow(reader, 'sort=updated_at&limit=50')
    const created = await writer.post('/v1/articles', { headline: 'Seen at once' })
    const next = await follow(reader, 'sort=updated_at&limit=50', cursor)
    expect(ids(next.rows)).toEqual([created.body.article_id])
    expect((await writer.patch(`/v1/articles/${created.body.article_id}`, { headline: 'Seen at once, edited' })).status).toBe(200)
    const edited = await follow(reader, 'sort=updated_at&limit=50', next.cursor)
    expect(edited.rows.map((row) => [row.article_id, row.version])).toEqual([[created.body.article_id, 2]])
  })

  it('holds back what committed after a transaction still open, and lists that transaction’s change first once it commits: a late commit is never skipped', async () => {
    const late = await createTestTenant({ plan: 'enterprise' })
    const client = apiClient(server.url, await late.token(['articles:read', 'articles:write']))
    const early = (await client.post('/v1/articles', { headline: 'Edited in a long transaction' })).body
    const start = await follow(client, 'sort=updated_at&limit=50')
    expect(ids(start.rows)).toEqual([early.article_id])

    const longWrite = await sqlPool.connect()
    let held: Awaited<ReturnType<typeof follow>>
    const meanwhile: string[] = []
    try {
      // The edit takes its transaction id now and commits only after later writes have.
      await longWrite.query('BEGIN')
      await longWrite.query(`UPDATE articles SET headline = 'Committed late', version = version + 1, updated_at = now() WHERE id = $1`, [early.article_id])
      for (let i = 0; i < 3; i++) meanwhile.push((await client.post('/v1/articles', { headline: `Committed meanwhile ${i}` })).body.article_id)
      held = await follow(client, 'sort=updated_at&limit=50', start.cursor)
      await longWrite.query('COMMIT')
    } catch (error) {
      await longWrite.query('ROLLBACK')
      throw error
    } finally {
      longWrite.release()
    }
    // Nothing is listed past the open transaction: a cursor handed out then would have passed its change.
    expect(held.rows).toEqual([])
    expect(held.cursor).toBe(start.cursor)
    const caught = await follow(client, 'sort=updated_at&limit=2', held.cursor)
    expect(caught.rows.map((row) => [row.article_id, row.version])).toEqual([[early.article_id, 2], ...meanwhile.map((id) => [id, 1])])
  })

  it('is not held back by a write transaction of another database on the same server', async () => {
    const elsewhere = new URL(process.env.DATABASE_URL!)
    elsewhere.pathname = '/postgres'
    const otherDatabase = new pg.Client({ connectionString: elsewhere.toString() })
    await otherDatabase.connect()
    try {
      await otherDatabase.query('BEGIN')
      // Takes a transaction id, as a write there would, and keeps it while this newsroom writes.
      await otherDatabase.query('SELECT pg_current_xact_id()')
      const { cursor } = await follow(reader, 'sort=updated_at&limit=50')
      const created = await writer.post('/v1/articles', { headline: 'Written while another database writes' })
      expect(ids((await follow(reader, 'sort=updated_at&limit=50', cursor)).rows)).toEqual([created.body.article_id])
    } finally {
      await otherDatabase.query('ROLLBACK')
      await otherDatabase.end()
    }
  })

  it('resumes a cursor the settle-window feed issued exactly where it stood', async () => {
    const legacy = await createTestTenant({ plan: 'enterprise' })
    const client = apiClient(server.url, await legacy.token(['articles:read', 'articles:write']))
    // Articles written before the change_sequence migration: change_xid 0, in (updated_at, id) order.
    const before = Array.from({ length: 5 }, (_, i) => ({ id: createId('art'), updatedAt: new Date(Date.UTC(2026, 10, 1, 12, i)) }))
    await db.article.createMany({ data: before.map(({ id, updatedAt }, i) => ({ id, tenantId: legacy.tenant.id, headline: `Before ${i}`, authorId: legacy.users.writer.id, updatedAt })) })
    await db.$executeRaw`UPDATE articles SET change_xid = '0' WHERE tenant_id = ${legacy.tenant.id}`
    const after = (await client.post('/v1/articles', { headline: 'After the migration' })).body.article_id

    // The old feed's cursor after the second article: (updated_at, id), no transaction.
    const issued = (await client.get('/v1/articles?sort=updated_at&limit=2')).body.next_cursor as string
    const payload = JSON.parse(Buffer.from(issued.split('.')[0]!, 'base64url').toString())
    expect(payload.x).toBe('0')
    delete payload.x
    payload.k = [before[1]!.updatedAt.getTime(), null, before[1]!.id]
    const resumed = await follow(client, 'sort=updated_at&limit=2', signCursor(payload))
    expect(ids(resumed.rows)).toEqual([...before.slice(2).map(({ id }) => id), after])
    // updated_after filters both: the older articles from that instant on, then the newer.
    const since = await follow(client, `sort=updated_at&limit=2&updated_after=${before[3]!.updatedAt.toISOString()}`)
    expect(ids(since.rows)).toEqual([before[3]!.id, before[4]!.id, after])
  })

  it('pages the feed by offset as by cursor, deep in it too', async () => {
    const deep = await createTestTenant({ plan: 'enterprise' })
    const client = apiClient(server.url, await deep.token(['articles:read']))
    const start = Date.UTC(2026, 9, 1)
    await db.article.createMany({
      data: Array.from({ length: 1_060 }, (_, i) => ({ id: createId('art'), tenantId: deep.tenant.id, headline: `Deep ${i}`, authorId: deep.users.writer.id, updatedAt: new Date(start + (i % 500) * 1_000) })),
    })
    const byCursor = ids((await follow(client, 'sort=updated_at&limit=200')).rows)
    expect(byCursor).toHaveLength(1_060)
    for (const offset of [0, 990, 1_000, 1_040]) {
      const page = await client.get(`/v1/articles?sort=updated_at&limit=30&offset=${offset}`)
      expect(ids(page.body.items), `offset ${offset}`).toEqual(byCursor.slice(offset, offset + 30))
    }
  })

  it('does not move an article for an update that changes nothing a reader sees', async () => {
    const quiet = await createTestTenant({ plan: 'enterprise' })
    const client = apiClient(server.url, await quiet.token(['articles:read', 'articles:write']))
    const first = (await client.post('/v1/articles', { headline: 'First' })).body.article_id
    const second = (await client.post('/v1/articles', { headline: 'Second' })).body.article_id
    const { cursor } = await follow(client, 'sort=updated_at&limit=50')
    // As the search language's change does: every row rewritten, no version or updated_at raised.
    await db.$executeRaw`UPDATE articles SET tags = tags WHERE tenant_id = ${quiet.tenant.id}`
    expect((await follow(client, 'sort=updated_at&limit=50', cursor)).rows).toEqual([])
    expect(ids((await follow(client, 'sort=updated_at&limit=50')).rows)).toEqual([first, second])
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
