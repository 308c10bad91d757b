import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { db } from '../../lib/db/client.ts'
import { createId } from '../../lib/ids.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// Timestamps are kept to the millisecond, but a query's bound may name any instant: RFC 3339
// allows any number of fractional digits (a mirror fed from PostgreSQL sends microseconds).
// `published_before=…05.1235Z` asks for everything published before .1235, which includes an
// article published at .123; `published_after=…05.1231Z` asks for nothing published at .123.

let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let reader: ReturnType<typeof apiClient>
const at = '2026-05-05T05:05:05.123Z'
let id: string

beforeAll(async () => {
  server = await startApiServer()
  newsroom = await createTestTenant({ plan: 'enterprise' })
  reader = apiClient(server.url, await newsroom.token(['articles:read', 'events:read']))
  id = createId('art')
  await db.article.create({ data: { id, tenantId: newsroom.tenant.id, headline: 'At a millisecond', authorId: newsroom.users.writer.id, status: 'published', publishedAt: new Date(at), updatedAt: new Date(at), slug: 'at-a-millisecond' } })
})

afterAll(async () => {
  await server.close()
})

const listed = async (query: string) => {
  const page = await reader.get(`/v1/articles?${query}`)
  expect(page.status, page.text).toBe(200)
  return { ids: page.body.items.map((row: { article_id: string }) => row.article_id), total: page.body.total }
}

describe('list bounds with more than three fractional digits (break50)', () => {
  it('published_before and updated_before are exclusive of the instant itself, not of its millisecond', async () => {
    expect(await listed('published_before=2026-05-05T05:05:05.1235Z')).toEqual({ ids: [id], total: 1 })
    expect(await listed('published_before=2026-05-05T05:05:05.123000001Z')).toEqual({ ids: [id], total: 1 })
    expect(await listed('published_before=2026-05-05T05:05:05.1230Z')).toEqual({ ids: [], total: 0 })
    expect((await listed('updated_before=2026-05-05T05:05:05.1235Z')).ids).toEqual([id])
    expect((await listed('sort=updated_at&updated_before=2026-05-05T05:05:05.1235Z')).ids).toEqual([id])
  })

  it('published_after and updated_after are inclusive of the instant itself, not of its millisecond', async () => {
    expect(await listed('published_after=2026-05-05T05:05:05.1231Z')).toEqual({ ids: [], total: 0 })
    expect(await listed('published_after=2026-05-05T05:05:05.1230Z')).toEqual({ ids: [id], total: 1 })
    expect((await listed('updated_after=2026-05-05T05:05:05.1231Z')).ids).toEqual([])
    expect((await listed('sort=updated_at&updated_after=2026-05-05T05:05:05.1231Z')).ids).toEqual([])
  })

  it('the events API: created_before is exclusive of the instant itself, not of its millisecond', async () => {
    const event = createId('evt')
    await db.event.create({ data: { id: event, tenantId: newsroom.tenant.id, kind: 'article.updated', occurredAt: new Date(at), data: { article_id: id } } })
    const page = await reader.get('/v1/events?created_before=2026-05-05T05:05:05.1235Z')
    expect(page.status, page.text).toBe(200)
    expect(page.body.items.map((item: { event_id: string }) => item.event_id)).toEqual([event])
  })

  it('an instant before 1970 rounds up as well', async () => {
    const early = createId('art')
    await db.article.create({ data: { id: early, tenantId: newsroom.tenant.id, headline: 'Before the epoch', authorId: newsroom.users.writer.id, status: 'published', publishedAt: new Date('1969-12-31T23:59:59.999Z'), slug: 'before' } })
    expect((await listed('published_before=1969-12-31T23:59:59.9995Z')).ids).toEqual([early])
    expect((await listed('published_after=1969-12-31T23:59:59.9995Z&published_before=1970-01-01T00:00:00Z')).ids).toEqual([])
  })
})
