import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { db } from '../../lib/db/client.ts'
import { createId } from '../../lib/ids.ts'
import { flushRequestLog } from '../../lib/request-log/record-api-request.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// Every list answers next_cursor (not only articles): following it returns each row once, in
// the offset order, through ties in the sort key; a forged, foreign or other-list cursor is a 422.

let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let other: TestTenant
let admin: ReturnType<typeof apiClient>
let webhookId: string
let articleId: string

/** Every item of a list, by cursor, and the same by offset. */
async function walk(client: ReturnType<typeof apiClient>, path: string, idField: string, limit: number) {
  const byCursor: string[] = []
  let cursor: string | null = null
  for (let pages = 0; pages < 50; pages++) {
    const separator = path.includes('?') ? '&' : '?'
    const answer: { status: number; body: { items: Record<string, string>[]; next_cursor: string | null } } = await client.get(`${path}${separator}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
    expect(answer.status, JSON.stringify(answer.body)).toBe(200)
    byCursor.push(...answer.body.items.map((item) => item[idField]!))
    cursor = answer.body.next_cursor
    if (!cursor) break
  }
  const all = await client.get(`${path}${path.includes('?') ? '&' : '?'}limit=100`)
  return { byCursor, byOffset: (all.body.items as Record<string, string>[]).map((item) => item[idField]!) }
}

beforeAll(async () => {
  server = await startApiServer()
  ;[newsroom, other] = await Promise.all([createTestTenant(), createTestTenant()])
  admin = apiClient(server.url, await newsroom.token(['admin']))
  // Seven subscriptions, four created at the same millisecond: ties broken by id.
  const at = new Date('2026-11-20T10:00:00.000Z')
  for (let i = 0; i < 7; i++) {
    await db.webhookSubscription.create({
      data: { id: createId('whk'), tenantId: newsroom.tenant.id, url: `https://receiver.example/${i}`, events: ['article.published'], secretEncrypted: 'x', ownerId: newsroom.users.admin.id, createdAt: i < 4 ? at : new Date(at.getTime() + i) },
    })
  }
  webhookId = (await db.webhookSubscription.findFirstOrThrow({ where: { tenantId: newsroom.tenant.id } })).id
  const event = await db.event.create({ data: { id: createId('evt'), tenantId: newsroom.tenant.id, kind: 'article.published', occurredAt: at, data: {} } })
  for (let i = 0; i < 5; i++) {
    const eventId = i === 0 ? event.id : (await db.event.create({ data: { id: createId('evt'), tenantId: newsroom.tenant.id, kind: 'article.published', occurredAt: at, data: {} } })).id
    await db.delivery.create({ data: { id: createId('dlv'), tenantId: newsroom.tenant.id, eventId, subscriptionId: webhookId, createdAt: at } })
  }
  const created = await admin.post('/v1/articles', { headline: 'Revised often' })
  articleId = created.body.article_id
  for (let i = 0; i < 6; i++) await admin.patch(`/v1/articles/${articleId}`, { lede: `Version ${i}` })
})

afterAll(() => server.close())

describe('cursors on every list', () => {
  it.each([
    ['webhooks', () => '/v1/webhooks', 'webhook_id', 3],
    ['deliveries', () => `/v1/webhooks/${webhookId}/deliveries`, 'delivery_id', 2],
    ['revisions', () => `/v1/articles/${articleId}/revisions`, 'revision_id', 2],
  ])('walks the %s list by cursor: every row once, in the offset order', async (_name, path, idField, limit) => {
    const { byCursor, byOffset } = await walk(admin, path(), idField, limit)
    expect(byOffset.length).toBeGreaterThan(limit)
    expect(byCursor).toEqual(byOffset)
  })

  it('walks the request log by cursor with its filters', async () => {
    await flushRequestLog()
    const { byCursor, byOffset } = await walk(admin, '/v1/requests?status=2xx', 'request_id', 2)
    expect(byOffset.length).toBeGreaterThan(2)
    expect(byCursor).toEqual(byOffset)
  })

  it('refuses a forged cursor, another list’s, and another newsroom’s with a 422 naming cursor', async () => {
    const first = await admin.get('/v1/webhooks?limit=2')
    const cursor = first.body.next_cursor as string
    expect(cursor).toEqual(expect.any(String))
    const forged = cursor.slice(0, -2) + (cursor.endsWith('AA') ? 'BB' : 'AA')
    for (const [client, path] of [
      [admin, `/v1/webhooks?cursor=${encodeURIComponent(forged)}`],
      [admin, `/v1/webhooks/${webhookId}/deliveries?cursor=${encodeURIComponent(cursor)}`],
      [apiClient(server.url, await other.token(['admin'])), `/v1/webhooks?cursor=${encodeURIComponent(cursor)}`],
      [admin, `/v1/webhooks?cursor=${encodeURIComponent(cursor)}&offset=2`],
    ] as const) {
      const refused = await client.get(path)
      expect(refused.status, path).toBe(422)
      expect((refused.body.errors as { field: string }[]).map((error) => error.field)).toEqual([path.includes('offset=2') ? 'offset' : 'cursor'])
    }
  })
})
