import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { db } from '../../lib/db/client.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// break79: `publish_at=9999-12-31T23:59:59-14:00` passes the schema (a four-digit year), but the
// instant is 10000-01-01T13:59:59Z. It is stored (PostgreSQL takes year 10000), and from then on:
// - the API shows scheduled_publish_at as `+010000-01-01T13:59:59.000Z` (toISOString's six-digit
//   year), which the API's own timestamp schema refuses when a client sends it back;
// - Prisma reads the column as an Invalid Date (publishIfStillScheduled, webhooks, the desk read
//   articles through it), whose getTime() is NaN and whose toISOString() throws.
// An instant past 9999-12-31T23:59:59.999Z should be refused (422) as the bounds of a list are
// when written with six digits.

let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let api: ReturnType<typeof apiClient>

beforeAll(async () => {
  server = await startApiServer()
  newsroom = await createTestTenant({ plan: 'enterprise' })
  api = apiClient(server.url, await newsroom.token(['articles:read', 'articles:write'], 'editor'))
})

afterAll(async () => {
  await server.close()
})

describe('a publish_at whose instant is past year 9999 (break79)', () => {
  it('is refused, or stored as something every reader can read and send back', async () => {
    const created = await api.post('/v1/articles', { headline: 'Far schedule', lede: 'x', body: '<p>x</p>' })
    expect(created.status, created.text).toBe(201)
    const id = created.body.article_id as string
    for (const step of ['in-review', 'approved']) expect((await api.post(`/v1/articles/${id}/transitions`, { to_state: step })).status).toBe(200)
    const moved = await api.post(`/v1/articles/${id}/transitions`, { to_state: 'published', publish_at: '9999-12-31T23:59:59-14:00' })
    if (moved.status === 422) return
    expect(moved.status, moved.text).toBe(200)
    // What the API showed is what it takes.
    const again = await api.post(`/v1/articles/${id}/transitions`, { to_state: 'published', publish_at: moved.body.scheduled_publish_at })
    expect(again.status, again.text).not.toBe(422)
    // And the application's own Prisma reads can read it.
    const row = await db.article.findUniqueOrThrow({ where: { id } })
    expect(Number.isNaN(row.scheduledPublishAt!.getTime())).toBe(false)
  })
})
