import { NotFoundError } from '../errors.ts'
import { createId } from '../ids.ts'
import type { Actor } from '../tenancy/actor.ts'
import { tenantDb } from '../tenancy/tenant-db.ts'
import { deliverAttempt, type AttemptOutcome } from './deliver-attempt.ts'
import { getWebhook } from './manage-subscriptions.ts'
import type { ManualDeliveryRecord } from './webhook-schemas.ts'

/** The kind of the event "Send test event" sends; never recorded by domain changes. */
export const webhookTestKind = 'webhook.test'

export type ManualDeliveryResult = AttemptOutcome & { deliveryId: string; eventId: string }

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
 */
export async function sendTestEvent(actor: Actor, webhookId: string): Promise<ManualDeliveryResult> {
  const subscription = await getWebhook(actor, webhookId)
  const now = new Date()
  const { eventId, deliveryId } = await tenantDb(actor.tenant.id).$transaction(async (tx) => {
    const event = await tx.event.create({
      data: {
        id: createId('evt'),
        tenantId: actor.tenant.id,
        kind: webhookTestKind,
        occurredAt: now,
        data: { webhook_id: subscription.id, message: 'A test event sent from the newsroom service. No action is needed.' },
        // Delivered right here, never through the queue: the sweeper must not pick it up.
        sentToQueueAt: now,
      },
    })
    const delivery = await tx.delivery.create({
      data: { id: createId('dlv'), tenantId: actor.tenant.id, eventId: event.id, subscriptionId: subscription.id },
    })
    return { eventId: event.id, deliveryId: delivery.id }
  })
  const outcome = await deliverAttempt(deliveryId, { kind: 'manual' })
  return { ...outcome, deliveryId, eventId }
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
