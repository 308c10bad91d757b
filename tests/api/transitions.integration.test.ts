import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ApiStatus } from '../../lib/articles/article-status.ts'
import { db } from '../../lib/db/client.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let client: ReturnType<typeof apiClient>

// The workflow as the contract states it (shared/spec/contract.md, Articles → Transition),
// written out here rather than read from the code under test.
const contractTransitions: Record<ApiStatus, ApiStatus[]> = {
  draft: ['in-review', 'archived'],
  'in-review': ['draft', 'approved', 'archived'],
  approved: ['published', 'draft', 'in-review', 'archived'],
  published: ['draft', 'archived'],
  archived: ['draft'],
}
const states = Object.keys(contractTransitions) as ApiStatus[]

// The shortest way to reach each state from draft through allowed moves.
const pathTo: Record<ApiStatus, ApiStatus[]> = {
  draft: [],
  'in-review': ['in-review'],
  approved: ['in-review', 'approved'],
  published: ['in-review', 'approved', 'published'],
  archived: ['archived'],
}

async function articleIn(state: ApiStatus): Promise<string> {
  const created = await client.post('/v1/articles', { headline: `Article heading for ${state}`, tags: ['workflow'] })
  expect(created.status).toBe(201)
  for (const step of pathTo[state]) {
    const moved = await client.post(`/v1/articles/${created.body.article_id}/transitions`, { to_state: step })
    expect(moved.status).toBe(200)
  }
  return created.body.article_id
}

async function eventsOf(articleId: string, since: Date) {
  const events = await db.event.findMany({ where: { tenantId: newsroom.tenant.id, createdAt: { gte: since } }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] })
  return events.filter((event) => (event.data as { article_id?: string }).article_id === articleId)
}

beforeAll(async () => {
  server = await startApiServer()
  newsroom = await createTestTenant()
  client = apiClient(server.url, await newsroom.token(['articles:read', 'articles:write'], 'editor'))
})
afterAll(() => server.close())

describe('the whole transition table', () => {
  for (const from of states) {
    for (const to of states) {
      const allowed = contractTransitions[from].includes(to)
      it(`${from} → ${to} is ${allowed ? 'allowed' : 'refused'}`, async () => {
        const id = await articleIn(from)
        const before = await db.article.findUniqueOrThrow({ where: { id } })
        const since = new Date()
        const answer = await client.post(`/v1/articles/${id}/transitions`, { to_state: to })
        const events = await eventsOf(id, since)
        if (!allowed) {
          expect(answer.status).toBe(409)
          expect(answer.body).toMatchObject({ code: 'invalid_transition', from_state: from })
          expect([...answer.body.allowed_to_states].sort()).toEqual([...contractTransitions[from]].sort())
          expect(events).toEqual([])
          expect((await db.article.findUniqueOrThrow({ where: { id } })).version).toBe(before.version)
          return
        }
        expect(answer.status).toBe(200)
        expect(answer.body.status).toBe(to)
        expect(answer.body.version).toBe(before.version + 1)
        const kinds = events.map((event) => event.kind)
        const expected = ['workflow.transitioned']
        if (to === 'published') expected.push('article.published')
        if (from === 'published' && to === 'draft') expected.push('article.unpublished')
        if (to === 'archived') expected.push('article.archived')
        expect(kinds.sort()).toEqual(expected.sort())
        const transitioned = events.find((event) => event.kind === 'workflow.transitioned')!
        expect(transitioned.data).toEqual({ article_id: id, from_state: from, to_state: to, actor_id: newsroom.users.editor.id })
        const history = await db.articleTransition.findMany({ where: { articleId: id }, orderBy: { createdAt: 'desc' }, take: 1 })
        expect(history[0]).toMatchObject({ actorId: newsroom.users.editor.id })
        if (to === 'published') {
          expect(answer.body.url).toMatch(new RegExp(`^https://${newsroom.tenant.slug}\\.example/articles/article-heading-for-${from}-`))
          expect(Date.parse(answer.body.published_at)).toBeGreaterThan(since.getTime() - 1_000)
          const published = events.find((event) => event.kind === 'article.published')!
          expect(published.data).toMatchObject({ article_id: id, headline: answer.body.headline, url: answer.body.url, author_id: newsroom.users.editor.id, published_at: answer.body.published_at })
        }
        if (from === 'published' && to === 'draft') expect(answer.body.url).toBeNull()
      })
    }
  }
})

describe('publishing', () => {
  it('schedules with a future publish_at, and a later transition cancels the schedule', async () => {
    const id = await articleIn('approved')
    const publishAt = new Date(Date.now() + 3_600_000).toISOString()
    const since = new Date()
    const scheduled = await client.post(`/v1/articles/${id}/transitions`, { to_state: 'published', publish_at: publishAt })
    expect(scheduled.status).toBe(200)
    expect(scheduled.body).toMatchObject({ status: 'approved', scheduled_publish_at: publishAt, published_at: null, url: null })
    expect((await eventsOf(id, since)).map((event) => event.kind).sort()).toEqual(['article.publish_scheduled', 'article.updated'])

    const { publishIfStillScheduled } = await import('../../lib/articles/transition-article.ts')
    const sentBack = await client.post(`/v1/articles/${id}/transitions`, { to_state: 'in-review' })
    expect(sentBack.body.scheduled_publish_at).toBeNull()
    const job = await publishIfStillScheduled({ ...newsroom.actor(), user: null }, id, new Date(publishAt))
    expect(job.published).toBe(false)
    expect((await client.get(`/v1/articles/${id}`)).body.status).toBe('in-review')
  })

  it('the scheduled job publishes an article still scheduled for that time', async () => {
    const id = await articleIn('approved')
    const publishAt = new Date(Date.now() + 60_000)
    await client.post(`/v1/articles/${id}/transitions`, { to_state: 'published', publish_at: publishAt.toISOString() })
    const { publishIfStillScheduled } = await import('../../lib/articles/transition-article.ts')
    expect((await publishIfStillScheduled({ ...newsroom.actor(), user: null }, id, new Date(publishAt.getTime() + 1))).published).toBe(false)
    const job = await publishIfStillScheduled({ ...newsroom.actor(), user: null }, id, publishAt)
    expect(job.published).toBe(true)
    const article = (await client.get(`/v1/articles/${id}`)).body
    expect(article).toMatchObject({ status: 'published', scheduled_publish_at: null })
    expect(article.url).toContain(`${newsroom.tenant.slug}.example/articles/`)
    const history = await db.articleTransition.findMany({ where: { articleId: id }, orderBy: { createdAt: 'desc' }, take: 1 })
    expect(history[0]).toMatchObject({ fromState: 'approved', toState: 'published', actorId: null })
  })

  it('publish_at now or in the past publishes at once; publish_at with another state is refused', async () => {
    const id = await articleIn('approved')
    const answer = await client.post(`/v1/articles/${id}/transitions`, { to_state: 'published', publish_at: '2020-01-01T00:00:00Z' })
    expect(answer.body.status).toBe('published')
    const other = await articleIn('draft')
    const refused = await client.post(`/v1/articles/${other}/transitions`, { to_state: 'in-review', publish_at: '2030-01-01T00:00:00Z' })
    expect(refused.status).toBe(422)
    expect(refused.body.errors[0].field).toBe('publish_at')
  })

  it('two simultaneous publications of one article: exactly one succeeds, one article.published event', async () => {
    for (let round = 0; round < 5; round++) {
      const id = await articleIn('approved')
      const answers = await Promise.all(Array.from({ length: 6 }, () => client.post(`/v1/articles/${id}/transitions`, { to_state: 'published' })))
      expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1)
      expect(answers.filter((answer) => answer.status === 409)).toHaveLength(5)
      const published = await db.event.count({ where: { kind: 'article.published', data: { path: ['article_id'], equals: id } } })
      expect(published).toBe(1)
    }
  })

  it("refuses a writer's token the moves reserved for editors", async () => {
    // A writer's token cannot even hold articles:write; an admin-made token owned by a writer is narrowed to read.
    const writerToken = await newsroom.token(['articles:read'], 'writer')
    const id = await articleIn('in-review')
    const answer = await apiClient(server.url, writerToken).post(`/v1/articles/${id}/transitions`, { to_state: 'approved' })
    expect(answer.status).toBe(403)
  })
})

describe('a stale If-Match (issue 28)', () => {
  it('is a 412 whose detail says what happened since, who did it and when; the live article stays live', async () => {
    const id = await articleIn('in-review')
    const seen = await client.get(`/v1/articles/${id}`)
    const etag = seen.headers.get('etag')!
    // An editor's integration approves and publishes from the version it read.
    expect((await client.post(`/v1/articles/${id}/transitions`, { to_state: 'approved' }, { 'If-Match': etag })).status).toBe(200)
    expect((await client.post(`/v1/articles/${id}/transitions`, { to_state: 'published' })).status).toBe(200)
    const live = await db.article.findUniqueOrThrow({ where: { id } })

    // Another client, still holding the in-review version, sends it back to draft.
    const admin = apiClient(server.url, await newsroom.token(['articles:write', 'articles:read'], 'admin'))
    const stale = await admin.post(`/v1/articles/${id}/transitions`, { to_state: 'draft' }, { 'If-Match': etag })
    expect(stale.status).toBe(412)
    expect(stale.headers.get('content-type')).toContain('application/problem+json')
    const at = (await db.articleTransition.findFirstOrThrow({ where: { articleId: id, toState: 'published' } })).createdAt.toISOString().slice(11, 16)
    expect(stale.body).toMatchObject({ code: 'precondition_failed', status: 412 })
    // A change made on another UTC day than the answer's names the day too (a run across midnight).
    expect(stale.body.detail.replace(/ UTC on [^;,]+/g, ' UTC')).toBe(
      `This article changed after the version you saw (${seen.body.version}): it was approved and published by ${newsroom.tenant.slug} editor at ${at} UTC; ` +
        `it is now published, at version ${live.version}. Look at it again and decide whether your change still applies.`,
    )
    expect(await db.article.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: 'published', version: live.version, url: live.url })

    // Sent with the version it now has, the same move goes through.
    const current = await admin.post(`/v1/articles/${id}/transitions`, { to_state: 'draft' }, { 'If-Match': `"${live.version}"` })
    expect(current.status).toBe(200)
    expect(current.body).toMatchObject({ status: 'draft', url: null })
  })
})
