import { isEventKind } from '../events/event-kinds.ts'
import { createId } from '../ids.ts'
import { systemDb } from '../tenancy/tenant-db.ts'

export type PlannedDelivery = { deliveryId: string; subscriptionId: string; tenantId: string; eventId: string; kind: string }

/**
 * The fan-out of one outbox event: a pending Delivery for every enabled (or paused) subscription of the
 * event's tenant that asked for its kind and existed when it happened. Idempotent — the
 * unique (event, subscription) pair makes a re-run find the rows it made instead of
 * doubling them — and it returns the deliveries not yet attempted, for enqueueing.
 */
export async function createDeliveriesForEvent(eventId: string): Promise<PlannedDelivery[]> {
  const db = systemDb()
  const event = await db.event.findUnique({ where: { id: eventId } })
  // Internal kinds (scheduled publishing) are the service's own business, never a subscriber's.
  if (!event || !isEventKind(event.kind)) return []

  const subscriptions = await db.webhookSubscription.findMany({
    // A paused subscription's deliveries are made too: they wait, and go out on resume.
    where: { tenantId: event.tenantId, status: { in: ['enabled', 'paused'] }, events: { has: event.kind }, createdAt: { lte: event.createdAt } },
    select: { id: true },
  })
  if (subscriptions.length > 0) {
    await db.delivery.createMany({
      data: subscriptions.map((subscription) => ({ id: createId('dlv'), tenantId: event.tenantId, eventId: event.id, subscriptionId: subscription.id })),
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
