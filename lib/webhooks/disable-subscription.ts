import { recordAudit } from '../audit.ts'
import { systemDb } from '../tenancy/tenant-db.ts'
import { metrics } from '../ops/metrics.ts'
export const disabledForFailures = 'delivery_failures'

/** delivery_failures: a delivery's every attempt failed. receiver_gone: the receiver answered 410 Gone. */
export type DisableReason = typeof disabledForFailures | 'receiver_gone'

/** What the owner's e-mail needs to say; plain JSON, so a durable step can return it. */
export type DisableNotice = {
  tenantId: string
  tenantName: string
  subscriptionId: string
  url: string
  ownerEmail: string
  ownerName: string
  reason: DisableReason
  deliveryId: string
  eventId: string
  kind: string
  attempts: number
  lastResponseStatus: number | null
  lastError: string | null
  disabledAt: string
}

/**
 * After the last retry of a delivery failed, or its receiver answered 410 Gone: disables its
 * subscription and stops the subscription's other pending deliveries, in one transaction.
 * Returns the notice for the owner only when this call did the disabling, so racing
 * deliveries send one e-mail.
 */
export async function disableSubscription(
  deliveryId: string,
  reason: DisableReason,
  last: { attempts: number; responseStatus: number | null; error: string | null },
): Promise<DisableNotice | null> {
  const db = systemDb()
  const delivery = await db.delivery.findUnique({
    where: { id: deliveryId },
    include: { event: { select: { kind: true } }, subscription: { include: { owner: true, tenant: true } } },
  })
  if (!delivery) return null
  const { subscription } = delivery
  const disabledAt = new Date()
  return db.$transaction(async (tx) => {
    const { count } = await tx.webhookSubscription.updateMany({
      where: { id: subscription.id, status: 'enabled' },
      data: { status: 'disabled', disabledAt, disabledReason: reason },
    })
    await tx.delivery.updateMany({ where: { subscriptionId: subscription.id, status: 'pending' }, data: { status: 'failed', nextAttemptAt: null } })
    if (count === 0) return null
    metrics.subscriptionsDisabled.inc()
    await recordAudit(tx, {
      tenantId: subscription.tenantId,
      actorId: null,
      action: 'webhook.disabled',
      targetType: 'webhook',
      targetId: subscription.id,
      metadata: { reason, url: subscription.url, last_response_status: last.responseStatus, last_error: last.error },
    })
    return {
      tenantId: subscription.tenantId,
      tenantName: subscription.tenant.name,
      subscriptionId: subscription.id,
      url: subscription.url,
      ownerEmail: subscription.owner.email,
      ownerName: subscription.owner.name,
      reason,
      deliveryId: delivery.id,
      eventId: delivery.eventId,
      kind: delivery.event.kind,
      attempts: last.attempts,
      lastResponseStatus: last.responseStatus,
      lastError: last.error,
      disabledAt: disabledAt.toISOString(),
    }
  })
}
