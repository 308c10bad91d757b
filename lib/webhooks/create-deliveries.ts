import { sqlPool } from '../db/client.ts'
import { isEventKind } from '../events/event-kinds.ts'
import { createId } from '../ids.ts'
import { systemDb } from '../tenancy/tenant-db.ts'
import { factsFromEventData, hasArticleFilter, passesFilter, type ArticleFacts, type SubscriptionFilter } from './subscription-filter.ts'

/** Whose subscriptions get deliveries: a paused subscription's are made too, and wait for its resume. */
const receivingStatuses: ('enabled' | 'paused')[] = ['enabled', 'paused']

export type PlannedDelivery = { deliveryId: string; subscriptionId: string; tenantId: string; eventId: string; kind: string }

/**
 * What a subscription's filter looks at of this event: its data's, and for workflow.transitioned
 * (whose data names only the article) the article's department and tags as they are now, read
 * only when some subscription filters on them.
 */
async function eventFacts(event: { tenantId: string; kind: string; data: unknown }, filters: SubscriptionFilter[]): Promise<ArticleFacts | null> {
  const facts = factsFromEventData(event.kind, event.data)
  if (!facts || facts.complete || !facts.articleId) return facts
  if (!filters.some((filter) => filter.departmentIds.length > 0 || filter.tags.length > 0)) return facts
  const article = await systemDb().article.findFirst({ where: { id: facts.articleId, tenantId: event.tenantId }, select: { departmentId: true, tags: true } })
  return { ...facts, departmentId: article?.departmentId ?? null, tags: article?.tags ?? [] }
}

/**
 * The fan-out of one outbox event: a pending Delivery for every enabled (or paused) subscription of the
 * event's tenant that asked for its kind, whose filter it passes (subscription-filter.ts), and
 * that existed when it happened. The filter is read here, once: a delivery made goes on under
 * a later filter change, and events after the change meet the new filter. Idempotent — the
 * unique (event, subscription) pair makes a re-run find the rows it made instead of
 * doubling them — and it returns the deliveries not yet attempted, for enqueueing.
 */
export async function createDeliveriesForEvent(eventId: string): Promise<PlannedDelivery[]> {
  const db = systemDb()
  const event = await db.event.findUnique({ where: { id: eventId } })
  // Internal kinds (scheduled publishing) are the service's own business, never a subscriber's.
  if (!event || !isEventKind(event.kind)) return []

  const subscriptions = await db.webhookSubscription.findMany({
    where: { tenantId: event.tenantId, status: { in: receivingStatuses }, events: { has: event.kind }, createdAt: { lte: event.createdAt } },
    select: { id: true, departmentIds: true, tags: true, statuses: true },
  })
  const filtered = subscriptions.filter(hasArticleFilter)
  const facts = filtered.length > 0 ? await eventFacts(event, filtered) : null
  const receiving = subscriptions.filter((subscription) => passesFilter(subscription, facts))
  if (receiving.length > 0) {
    await db.delivery.createMany({
      data: receiving.map((subscription) => ({ id: createId('dlv'), tenantId: event.tenantId, eventId: event.id, subscriptionId: subscription.id })),
      skipDuplicates: true,
    })
  }
  const deliveries = await db.delivery.findMany({
    where: { eventId: event.id, status: 'pending', attempts: { none: {} } },
    select: { id: true, subscriptionId: true },
    orderBy: { id: 'asc' },
  })
  return deliveries.map((delivery) => ({ deliveryId: delivery.id, subscriptionId: delivery.subscriptionId, tenantId: event.tenantId, eventId: event.id, kind: event.kind }))
}

/**
 * Which of these events some subscription of its tenant asked for (by kind, whatever its
 * creation time, so it errs only towards yes): an event no subscription asked for needs no
 * fan-out. Read after the events committed, so a subscription created before them is seen.
 */
export async function eventsWithSubscribers(events: { tenantId: string; kind: string }[]): Promise<boolean[]> {
  const tenantIds = [...new Set(events.filter((event) => isEventKind(event.kind)).map((event) => event.tenantId))]
  if (tenantIds.length === 0) return events.map(() => false)
  // Raw SQL: this runs for every batch of writes handed to the queue, where Prisma's query
  // machinery cost more CPU than the write it followed (bench: create throughput).
  const { rows: subscriptions } = await sqlPool.query<{ tenant_id: string; events: string[] }>(
    `SELECT tenant_id, events FROM webhook_subscriptions WHERE tenant_id = ANY($1::text[]) AND status::text = ANY($2::text[])`,
    [tenantIds, receivingStatuses],
  )
  const asked = new Set(subscriptions.flatMap((subscription) => subscription.events.map((kind) => `${subscription.tenant_id} ${kind}`)))
  return events.map((event) => isEventKind(event.kind) && asked.has(`${event.tenantId} ${event.kind}`))
}
