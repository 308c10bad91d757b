import { NotFoundError } from '../errors.ts'
import { createId } from '../ids.ts'
import type { Actor } from '../tenancy/actor.ts'
import { tenantDb } from '../tenancy/tenant-db.ts'
import { deliverAttempt, type AttemptOutcome } from './deliver-attempt.ts'
import { getWebhook } from './manage-subscriptions.ts'
import type { ApiStatus } from '../articles/article-status.ts'
import type { EventKind } from '../events/event-kinds.ts'
import type { WebhookSubscription } from '../db/generated/client.ts'
import { describeFilter } from './subscription-filter.ts'
import type { ManualDeliveryRecord, TestDeliveryRecord } from './webhook-schemas.ts'
import { assertSampleKind, sampleEventData } from './sample-events.ts'

/** The kind of the event "Send test event" sends; never recorded by domain changes. */
export const webhookTestKind = 'webhook.test'

export type ManualDeliveryResult = AttemptOutcome & { deliveryId: string; eventId: string }
export type SubscriptionFilterRecord = TestDeliveryRecord['filter']
export type TestDeliveryResult = ManualDeliveryResult & { filter: SubscriptionFilterRecord }

/** The subscription's kinds and filters, and in words which events pass them (departments by name). */
export async function subscriptionFilterRecord(tenantId: string, subscription: WebhookSubscription): Promise<SubscriptionFilterRecord> {
  const departments = subscription.departmentIds.length === 0 ? [] : await tenantDb(tenantId).department.findMany({ where: { id: { in: subscription.departmentIds } }, select: { id: true, name: true } })
  return {
    events: subscription.events as EventKind[],
    department_ids: subscription.departmentIds,
    tags: subscription.tags,
    statuses: subscription.statuses as ApiStatus[],
    summary: describeFilter(subscription.events, subscription, new Map(departments.map((department) => [department.id, department.name]))),
  }
}

export function toTestDeliveryRecord(result: TestDeliveryResult): TestDeliveryRecord {
  return { ...toManualDeliveryRecord(result), filter: result.filter }
}

/** A manual attempt as the API shows it. */
export function toManualDeliveryRecord(result: ManualDeliveryResult): ManualDeliveryRecord {
  return {
    delivery_id: result.deliveryId,
    event_id: result.eventId,
    result: result.result === 'succeeded' ? 'succeeded' : 'failed',
    attempt: result.attempt,
    response_status: result.responseStatus,
    duration_ms: result.durationMs,
    error: result.error,
  }
}

/**
 * "Send test event" (portal and API): a webhook.test event to one subscription, attempted once
 * at once through the same signing and sending path as real deliveries, and kept in its
 * deliveries log. Works on a disabled subscription too, to check a receiver before re-enabling.
 * It bypasses the subscription's filter, and says (in its data and the answer) which events
 * the filter passes.
 */
export async function sendTestEvent(actor: Actor, webhookId: string, kind: string = webhookTestKind): Promise<TestDeliveryResult> {
  const subscription = await getWebhook(actor, webhookId)
  // Or a sample of one of its kinds (sample-events.ts), marked test: true in its data.
  const sampled = kind === webhookTestKind ? null : assertSampleKind(kind, subscription.events)
  const filter = await subscriptionFilterRecord(actor.tenant.id, subscription)
  const now = new Date()
  const { eventId, deliveryId } = await tenantDb(actor.tenant.id).$transaction(async (tx) => {
    const event = await tx.event.create({
      data: {
        id: createId('evt'),
        tenantId: actor.tenant.id,
        kind: sampled ?? webhookTestKind,
        occurredAt: now,
        data: sampled
          ? { ...sampleEventData(sampled, actor.user?.id ?? null), webhook_id: subscription.id, filter }
          : { webhook_id: subscription.id, message: 'A test event sent from the newsroom service. No action is needed.', filter },
        // Delivered right here, never through the queue: the sweeper must not pick it up.
        sentToQueueAt: now,
      },
    })
    const delivery = await tx.delivery.create({
      data: { id: createId('dlv'), tenantId: actor.tenant.id, eventId: event.id, subscriptionId: subscription.id },
    })
    return { eventId: event.id, deliveryId: delivery.id }
  }).catch((error: unknown) => {
    // Deleted between the read above and this insert (the foreign key refuses): to the caller it
    // is gone, a 404 like any unknown subscription, not a 500.
    if ((error as { code?: string }).code === 'P2003') throw new NotFoundError('webhook', webhookId)
    throw error
  })
  const outcome = await deliverAttempt(deliveryId, { kind: 'manual' })
  return { ...outcome, deliveryId, eventId, filter }
}

/**
 * "Redeliver" (portal and API): one more attempt of an existing delivery, now, with the same
 * X-Service-Delivery id. It does not restart or change the automatic schedule. The API names
 * the subscription too; a delivery of another subscription is then not found.
 */
export async function redeliver(actor: Actor, deliveryId: string, webhookId?: string): Promise<ManualDeliveryResult> {
  if (webhookId !== undefined) await getWebhook(actor, webhookId)
  const delivery = await tenantDb(actor.tenant.id).delivery.findUnique({ where: { id: deliveryId } })
  if (!delivery || (webhookId !== undefined && delivery.subscriptionId !== webhookId)) throw new NotFoundError('delivery', deliveryId)
  const outcome = await deliverAttempt(deliveryId, { kind: 'manual' })
  return { ...outcome, deliveryId, eventId: delivery.eventId }
}
