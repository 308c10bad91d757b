import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { createArticle } from '../../lib/articles/create-article.ts'
import { transitionArticle } from '../../lib/articles/transition-article.ts'
import { db } from '../../lib/db/client.ts'
import { createId } from '../../lib/ids.ts'
import { parseInput } from '../../lib/parse-input.ts'
import { createUser } from '../../lib/users/manage-users.ts'
import { createUserSchema } from '../../lib/users/user-schemas.ts'
import { createDeliveriesForEvent } from '../../lib/webhooks/create-deliveries.ts'
import { deliverAttempt } from '../../lib/webhooks/deliver-attempt.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { stubEnv } from '../support/stub-env.ts'
import { startWebhookReceiver } from '../support/webhook-receiver.ts'

// Webhook filters end to end: set through the API, applied when an event fans out (an event
// outside the filter makes no delivery), and a change while deliveries are pending.

let server: Awaited<ReturnType<typeof startApiServer>>
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>
let newsroom: TestTenant
let api: ReturnType<typeof apiClient>
let news: string
let sport: string

beforeAll(async () => {
  stubEnv({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_SECRET_KEY: 'filters-test-key', SMTP_URL: undefined })
  ;[server, receiver] = await Promise.all([startApiServer(), startWebhookReceiver()])
})

afterAll(async () => {
  await Promise.all([server.close(), receiver.close()])
  vi.unstubAllEnvs()
})

beforeEach(async () => {
  receiver.reset()
  newsroom = await createTestTenant()
  ;[news, sport] = newsroom.departments.map((department) => department.id) as [string, string]
  api = apiClient(server.url, await newsroom.token(['webhooks:manage']))
})

async function subscribe(body: Record<string, unknown>): Promise<string> {
  const answer = await api.post('/v1/webhooks', { url: receiver.url, secret: 'filters-secret-0001', ...body })
  expect(answer.status, answer.text).toBe(201)
  return answer.body.webhook_id
}

/** Fans out the events the newsroom recorded since `since` and says which subscriptions got a delivery of each. */
async function fanOut(since: Date) {
  const events = await db.event.findMany({ where: { tenantId: newsroom.tenant.id, occurredAt: { gte: since } }, orderBy: [{ occurredAt: 'asc' }, { id: 'asc' }] })
  const result: { kind: string; to: string[] }[] = []
  for (const event of events) {
    await createDeliveriesForEvent(event.id)
    const deliveries = await db.delivery.findMany({ where: { eventId: event.id }, select: { subscriptionId: true } })
    if (event.kind !== 'article.publish_scheduled') result.push({ kind: event.kind, to: deliveries.map((delivery) => delivery.subscriptionId).sort() })
  }
  return result
}

describe('setting filters', () => {
  it('stores, shows and changes department_ids, tags and statuses; an empty list removes a filter', async () => {
    const created = await api.post('/v1/webhooks', { url: receiver.url, secret: 'filters-secret-0001', events: ['article.published'], department_ids: [sport, sport], tags: ['Election', 'election', 'vote'], statuses: ['published'] })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ department_ids: [sport], tags: ['Election', 'vote'], statuses: ['published'] })
    const id = created.body.webhook_id
    expect((await api.get(`/v1/webhooks/${id}`)).body).toMatchObject({ department_ids: [sport], tags: ['Election', 'vote'], statuses: ['published'] })
    const patched = await api.patch(`/v1/webhooks/${id}`, { tags: [], statuses: ['published', 'archived'] })
    expect(patched.body).toMatchObject({ department_ids: [sport], tags: [], statuses: ['published', 'archived'] })
    const plain = await api.post('/v1/webhooks', { url: receiver.url, secret: 'filters-secret-0001', events: ['article.published'] })
    expect(plain.body).toMatchObject({ department_ids: [], tags: [], statuses: [] })
  })

  it("refuses another newsroom's department, an unknown status and a bad tag with 422 naming the field", async () => {
    const other = await createTestTenant()
    const foreign = await api.post('/v1/webhooks', { url: receiver.url, secret: 'filters-secret-0001', events: ['article.published'], department_ids: [sport, other.departments[0]!.id] })
    expect(foreign.status).toBe(422)
    expect(foreign.body.errors).toEqual([{ field: 'department_ids.1', message: `No department with id '${other.departments[0]!.id}' exists in this newsroom.` }])
    const status = await api.post('/v1/webhooks', { url: receiver.url, secret: 'filters-secret-0001', events: ['article.published'], statuses: ['live'] })
    expect(status.status).toBe(422)
    expect(status.body.errors[0]).toMatchObject({ field: 'statuses.0', message: expect.stringContaining('live') })
    const tag = await api.post('/v1/webhooks', { url: receiver.url, secret: 'filters-secret-0001', events: ['article.published'], tags: [''] })
    expect(tag.status).toBe(422)
    const id = await subscribe({ events: ['article.published'] })
    expect((await api.patch(`/v1/webhooks/${id}`, { department_ids: [other.departments[0]!.id] })).status).toBe(422)
    expect(await db.webhookSubscription.count({ where: { tenantId: newsroom.tenant.id } })).toBe(1)
  })

  it('documents the filters in the OpenAPI document', async () => {
    const document = (await apiClient(server.url).get('/v1/openapi.json')).body
    const create = document.components.schemas.CreateWebhook
    expect(Object.keys(create.properties)).toEqual(expect.arrayContaining(['department_ids', 'tags', 'statuses']))
    expect(document.paths['/v1/webhooks'].post.description).toContain('**Filters**')
  })
})

describe('filters at fan-out', () => {
  it('an event outside a filter makes no delivery; events about no article are not narrowed', async () => {
    const kinds = ['article.created', 'article.published', 'workflow.transitioned', 'user.created']
    const inSport = await subscribe({ events: kinds, department_ids: [sport] })
    const tagged = await subscribe({ events: kinds, tags: ['ELECTION'] })
    const published = await subscribe({ events: kinds, statuses: ['published'] })
    const sportPublished = await subscribe({ events: kinds, department_ids: [sport], statuses: ['published'] })
    const everything = await subscribe({ events: kinds })
    const since = new Date()
    const editor = newsroom.actor('editor')

    const sportStory = await createArticle(editor, { headline: 'Cup final', department_id: sport, tags: ['Election'], status: 'in-review' })
    await createArticle(editor, { headline: 'Council budget', department_id: news, tags: ['budget'] })
    await transitionArticle(editor, sportStory.id, { to_state: 'approved' })
    await transitionArticle(editor, sportStory.id, { to_state: 'published' })
    await createUser(newsroom.actor('admin'), parseInput(createUserSchema, { email: `${createId('usr').slice(-8)}@${newsroom.tenant.slug}.example`, name: 'New Reporter', role: 'writer' }))

    // Events of one change share their instant, so they are compared in a stable order of their own.
    const stable = (list: { kind: string; to: string[] }[]) => list.map((entry) => JSON.stringify(entry)).sort()
    expect(stable(await fanOut(since))).toEqual(
      stable([
        { kind: 'article.created', to: [inSport, tagged, everything].sort() },
        { kind: 'article.created', to: [everything] },
        // in-review → approved: its department and tags are the article's, read at fan-out.
        { kind: 'workflow.transitioned', to: [inSport, tagged, everything].sort() },
        { kind: 'workflow.transitioned', to: [inSport, tagged, published, sportPublished, everything].sort() },
        { kind: 'article.published', to: [inSport, tagged, published, sportPublished, everything].sort() },
        { kind: 'user.created', to: [inSport, tagged, published, sportPublished, everything].sort() },
      ]),
    )
  })

  it('a filter changed while deliveries are pending: the pending ones go on, new events meet the new filter', async () => {
    const id = await subscribe({ events: ['article.created'], department_ids: [sport] })
    const since = new Date()
    const first = await createArticle(newsroom.actor('editor'), { headline: 'Before the change', department_id: sport })
    await fanOut(since)
    const pending = await db.delivery.findFirstOrThrow({ where: { subscriptionId: id } })
    receiver.answer({ status: 503 })
    expect(await deliverAttempt(pending.id, { kind: 'scheduled', retryDelayMs: 60_000 })).toMatchObject({ result: 'failed' })
    expect(await db.delivery.findUniqueOrThrow({ where: { id: pending.id } })).toMatchObject({ status: 'pending', nextAttemptAt: expect.any(Date) })

    expect((await api.patch(`/v1/webhooks/${id}`, { department_ids: [news] })).status).toBe(200)
    const changedAt = new Date()
    await createArticle(newsroom.actor('editor'), { headline: 'Sport after the change', department_id: sport })
    const newsStory = await createArticle(newsroom.actor('editor'), { headline: 'News after the change', department_id: news })
    await fanOut(changedAt)

    // The retry of the pending delivery goes out under the new filter.
    expect(await deliverAttempt(pending.id, { kind: 'scheduled', retryDelayMs: 300_000 })).toMatchObject({ result: 'succeeded' })
    expect(JSON.parse(receiver.requests.at(-1)!.body).data.article_id).toBe(first.id)
    const deliveries = await db.delivery.findMany({ where: { subscriptionId: id }, include: { event: true }, orderBy: { createdAt: 'asc' } })
    expect(deliveries.map((delivery) => (delivery.event.data as { article_id: string }).article_id)).toEqual([first.id, newsStory.id])
  })
})

describe('test event', () => {
  it('says which filter real events pass, in the answer and in the event it sends', async () => {
    const id = await subscribe({ events: ['article.published', 'user.created'], department_ids: [sport], tags: ['vote'] })
    const answer = await api.post(`/v1/webhooks/${id}/test`)
    expect(answer.status).toBe(200)
    expect(answer.body.filter).toEqual({
      events: ['article.published', 'user.created'],
      department_ids: [sport],
      tags: ['vote'],
      statuses: [],
      summary: 'article.published events about articles in Sport, tagged vote (any spelling); every user.created event.',
    })
    expect(JSON.parse(receiver.requests.at(-1)!.body).data.filter).toEqual(answer.body.filter)
    const open = await subscribe({ events: ['article.published'] })
    expect((await api.post(`/v1/webhooks/${open}/test`)).body.filter.summary).toBe('Every article.published event.')
  })
})
