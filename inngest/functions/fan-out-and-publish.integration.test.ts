import { InngestTestEngine } from '@inngest/test'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createArticle } from '../../lib/articles/create-article.ts'
import { transitionArticle } from '../../lib/articles/transition-article.ts'
import { db } from '../../lib/db/client.ts'
import { recordEvents, type RecordedEvent } from '../../lib/events/record-event.ts'
import { toInngestEvent } from '../outbox-queue.ts'
import { createId } from '../../lib/ids.ts'
import { tenantDb } from '../../lib/tenancy/tenant-db.ts'
import { createTestTenant, type TestTenant } from '../../tests/support/fixtures.ts'
import { fanOutEvent } from './fan-out-event.ts'
import { publishScheduledArticle } from './publish-scheduled-article.ts'
import { stubEnv } from '../../tests/support/stub-env.ts'

// fan-out-event and publish-scheduled-article under @inngest/test, with the real database.
// Sending (step.sendEvent) and sleeping are mocked by step id.

let newsroom: TestTenant
let neighbour: TestTenant

beforeAll(async () => {
  stubEnv({ WEBHOOK_SECRET_KEY: 'fan-out-test-key' })
  newsroom = await createTestTenant()
  neighbour = await createTestTenant()
})
afterAll(() => {
  vi.unstubAllEnvs()
})

function subscriptionRow(tenant: TestTenant, events: string[], extra: { status?: 'enabled' | 'disabled'; createdAt?: Date } = {}) {
  return { id: createId('whk'), tenantId: tenant.tenant.id, url: 'https://hooks.example.com/x', events, secretEncrypted: 'unused', ownerId: tenant.users.admin.id, ...extra }
}

async function record(tenant: TestTenant, kind: 'article.published' | 'article.publish_scheduled' | 'media.uploaded', data: Record<string, string> = {}): Promise<RecordedEvent> {
  const [event] = await tenantDb(tenant.tenant.id).$transaction((tx) => recordEvents(tx, tenant.tenant.id, [{ kind, data }]))
  return event!
}

function fanOutEngine(event: RecordedEvent) {
  const { id, name, data, ts } = toInngestEvent(event)
  return new InngestTestEngine({ function: fanOutEvent, events: [{ id, name, data, ts }], steps: [{ id: 'enqueue-deliveries', handler: () => ({ ids: [] }) }] })
}

describe('fan-out-event', () => {
  it('creates one delivery per enabled subscription of the tenant that wants the kind, and enqueues each by its delivery id', async () => {
    const wanted = [subscriptionRow(newsroom, ['article.published']), subscriptionRow(newsroom, ['article.unpublished', 'article.published'])]
    await db.webhookSubscription.createMany({
      data: [
        ...wanted,
        subscriptionRow(newsroom, ['article.unpublished']),
        subscriptionRow(newsroom, ['article.published'], { status: 'disabled' }),
        subscriptionRow(neighbour, ['article.published']),
      ],
    })
    const event = await record(newsroom, 'article.published', { article_id: 'art_fan' })
    // Created after the event happened: it only receives later events.
    await db.webhookSubscription.create({ data: subscriptionRow(newsroom, ['article.published'], { createdAt: new Date(Date.now() + 5_000) }) })

    const { result, ctx } = await fanOutEngine(event).execute()

    expect(result).toEqual({ eventId: event.id, deliveries: 2 })
    const deliveries = await db.delivery.findMany({ where: { eventId: event.id } })
    expect(deliveries.map((delivery) => delivery.subscriptionId).sort()).toEqual(wanted.map((subscription) => subscription.id).sort())
    expect(deliveries.every((delivery) => delivery.status === 'pending' && delivery.tenantId === newsroom.tenant.id)).toBe(true)

    expect(ctx.step.sendEvent).toHaveBeenCalledTimes(1)
    const [stepId, payload] = ctx.step.sendEvent.mock.calls[0] as [string, { id: string; name: string; data: Record<string, string> }[]]
    expect(stepId).toBe('enqueue-deliveries')
    expect(payload.map((sent) => ({ id: sent.id, name: sent.name, data: sent.data })).sort((a, b) => a.id.localeCompare(b.id))).toEqual(
      deliveries
        .map((delivery) => ({
          id: delivery.id,
          name: 'newsroom/webhook.delivery_requested',
          data: { delivery_id: delivery.id, subscription_id: delivery.subscriptionId, tenant_id: newsroom.tenant.id, event_id: event.id, kind: 'article.published' },
        }))
        .sort((a, b) => a.id.localeCompare(b.id)),
    )

    // Run again (Inngest retrying, or the event re-sent): no new rows, the same delivery ids.
    const again = await fanOutEngine(event).execute()
    expect(again.result).toEqual({ eventId: event.id, deliveries: 2 })
    expect(await db.delivery.count({ where: { eventId: event.id } })).toBe(2)
  })

  it('never delivers the internal publish_scheduled kind, nor anything with no subscriber', async () => {
    await db.webhookSubscription.create({ data: subscriptionRow(newsroom, ['article.publish_scheduled']) })
    const internal = await record(newsroom, 'article.publish_scheduled', { article_id: 'art_x', publish_at: new Date().toISOString() })
    const { result, ctx } = await fanOutEngine(internal).execute()
    expect(result).toEqual({ eventId: internal.id, deliveries: 0 })
    expect(ctx.step.sendEvent).not.toHaveBeenCalled()
    expect(await db.delivery.count({ where: { eventId: internal.id } })).toBe(0)

    const lonely = await record(newsroom, 'media.uploaded')
    expect((await fanOutEngine(lonely).execute()).result).toEqual({ eventId: lonely.id, deliveries: 0 })
  })

  it('fans one event out to 100 subscriptions in one step.sendEvent, and a re-run creates no duplicates', async () => {
    const tenant = await createTestTenant()
    await db.webhookSubscription.createMany({ data: Array.from({ length: 100 }, () => subscriptionRow(tenant, ['media.uploaded'])) })
    const event = await record(tenant, 'media.uploaded')
    const { result, ctx } = await fanOutEngine(event).execute()
    expect(result).toEqual({ eventId: event.id, deliveries: 100 })
    expect(ctx.step.sendEvent).toHaveBeenCalledTimes(1)
    expect((ctx.step.sendEvent.mock.calls[0] as [string, unknown[]])[1]).toHaveLength(100)
    expect(await db.delivery.count({ where: { eventId: event.id } })).toBe(100)

    const again = await fanOutEngine(event).execute()
    expect(again.result).toEqual({ eventId: event.id, deliveries: 100 })
    expect(await db.delivery.count({ where: { eventId: event.id } })).toBe(100)
  })
})

describe('publish-scheduled-article', () => {
  async function scheduledArticle(publishAt: Date) {
    const editor = newsroom.actor('editor')
    const article = await createArticle(editor, { headline: `Scheduled ${createId('art').slice(-6)}`, status: 'in-review' })
    await transitionArticle(editor, article.id, { to_state: 'approved' })
    await transitionArticle(editor, article.id, { to_state: 'published', publish_at: publishAt.toISOString() })
    const row = await db.event.findFirstOrThrow({ where: { kind: 'article.publish_scheduled', data: { path: ['article_id'], equals: article.id } }, orderBy: { createdAt: 'desc' } })
    const { id, name, data, ts } = toInngestEvent(row)
    return { article, engine: new InngestTestEngine({ function: publishScheduledArticle, events: [{ id, name, data, ts }], steps: [{ id: 'wait-until-publish-at', handler: () => null }] }) }
  }

  it('sleeps until publish_at, then publishes the article as the system', async () => {
    const publishAt = new Date(Date.now() + 3_600_000)
    const { article, engine } = await scheduledArticle(publishAt)
    const { result, ctx } = await engine.execute()

    expect(ctx.step.sleepUntil).toHaveBeenCalledWith('wait-until-publish-at', publishAt.toISOString())
    expect(result).toEqual({ articleId: article.id, published: true })
    const published = await db.article.findUniqueOrThrow({ where: { id: article.id } })
    expect(published).toMatchObject({ status: 'published', scheduledPublishAt: null })
    expect(await db.articleTransition.findFirst({ where: { articleId: article.id, toState: 'published', actorId: null, publishAt: null } })).not.toBeNull()
  })

  it('does nothing when the schedule was moved or cancelled meanwhile', async () => {
    const first = new Date(Date.now() + 3_600_000)
    const { article, engine } = await scheduledArticle(first)
    // Moved to a later time: the run for the first time must not publish.
    await transitionArticle(newsroom.actor('editor'), article.id, { to_state: 'published', publish_at: new Date(first.getTime() + 3_600_000).toISOString() })
    expect((await engine.execute()).result).toEqual({ articleId: article.id, published: false })

    const cancelled = await scheduledArticle(new Date(Date.now() + 7_200_000))
    await transitionArticle(newsroom.actor('editor'), cancelled.article.id, { to_state: 'draft' })
    expect((await cancelled.engine.execute()).result).toEqual({ articleId: cancelled.article.id, published: false })
    expect((await db.article.findUniqueOrThrow({ where: { id: cancelled.article.id } })).status).toBe('draft')
  })
})
