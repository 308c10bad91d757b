import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { db } from '../../lib/db/client.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// Every write path's article event carries exactly the record the API answers for that write:
// the one-statement writes (lib/articles/article-write-statement.ts) build the event from the
// article they expect to store, with the database's two instants taken from the row, so a
// wrong expectation would show here as an event that differs from the response.

let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let client: ReturnType<typeof apiClient>

beforeAll(async () => {
  server = await startApiServer()
  newsroom = await createTestTenant()
  client = apiClient(server.url, await newsroom.token(['articles:read', 'articles:write'], 'editor'))
})
afterAll(() => server.close())

async function lastEvent(articleId: string, kind: string) {
  const events = await db.event.findMany({ where: { tenantId: newsroom.tenant.id, kind }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] })
  return events.find((event) => (event.data as { article_id?: string }).article_id === articleId)?.data
}

/** The response's article record (what the API adds beside it, such as body_removed, aside). */
function record(body: Record<string, unknown>) {
  const { body_removed: _removed, ...article } = body
  return article
}

describe('article events carry the record the API answers', () => {
  it('for create, PATCH, each move, scheduling and a slug change', async () => {
    const created = await client.post('/v1/articles', {
      headline: 'Ferry timetable changes',
      lede: 'From Monday.',
      body: '<p>The <em>new</em> times.</p><script>x()</script>',
      tags: ['Transport', 'transport', 'ferries'],
      department_id: newsroom.departments[0]!.id,
      slug: 'ferry-times',
      status: 'in-review',
    })
    expect(created.status).toBe(201)
    const id = created.body.article_id
    expect(await lastEvent(id, 'article.created')).toEqual(record(created.body))

    const patched = await client.patch(`/v1/articles/${id}`, { lede: null, tags: ['ferries'], body: '<p>Revised</p>' })
    expect(await lastEvent(id, 'article.updated')).toEqual(record(patched.body))

    const approved = await client.post(`/v1/articles/${id}/transitions`, { to_state: 'approved' })
    expect(approved.status).toBe(200)
    const scheduled = await client.post(`/v1/articles/${id}/transitions`, { to_state: 'published', publish_at: new Date(Date.now() + 86_400_000).toISOString() })
    expect(await lastEvent(id, 'article.updated')).toEqual(record(scheduled.body))

    const published = await client.post(`/v1/articles/${id}/transitions`, { to_state: 'published' })
    expect(published.body.status).toBe('published')
    expect(await lastEvent(id, 'article.published')).toEqual(record(published.body))

    const moved = await client.patch(`/v1/articles/${id}`, { slug: 'ferry-timetable' })
    expect(moved.body.previous_urls).toHaveLength(1)
    expect(await lastEvent(id, 'article.updated')).toEqual(record(moved.body))

    const unpublished = await client.post(`/v1/articles/${id}/transitions`, { to_state: 'draft' })
    expect(await lastEvent(id, 'article.unpublished')).toEqual(record(unpublished.body))

    const archived = await client.post(`/v1/articles/${id}/transitions`, { to_state: 'archived' })
    expect(await lastEvent(id, 'article.archived')).toEqual(record(archived.body))

    // The history rows written with the moves are there, in order.
    const history = await db.articleTransition.findMany({ where: { articleId: id }, orderBy: { createdAt: 'asc' } })
    expect(history.map((row) => `${row.fromState}>${row.toState}`)).toEqual(['in_review>approved', 'approved>published', 'approved>published', 'published>draft', 'draft>archived'])
  })

  it('writes nothing with a move that lost its race: no history row, no event', async () => {
    const created = await client.post('/v1/articles', { headline: 'Raced', status: 'in-review' })
    const id = created.body.article_id
    const moves = await Promise.all(['approved', 'draft', 'archived'].map((to_state) => client.post(`/v1/articles/${id}/transitions`, { to_state })))
    const done = moves.filter((move) => move.status === 200)
    const history = await db.articleTransition.count({ where: { articleId: id } })
    const events = await db.event.count({ where: { tenantId: newsroom.tenant.id, kind: 'workflow.transitioned', data: { path: ['article_id'], equals: id } } })
    expect(history).toBe(done.length)
    expect(events).toBe(done.length)
  })
})
