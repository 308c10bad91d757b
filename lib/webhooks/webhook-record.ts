import type { WebhookSubscription } from '../db/generated/client.ts'
import type { LastDeliveryResult } from './last-delivery-results.ts'
import type { ApiStatus } from '../articles/article-status.ts'
import type { EventKind } from '../events/event-kinds.ts'
import type { WebhookRecord } from './webhook-schemas.ts'

/** The subscription as the API shows it; the signing secret never leaves the service. */
export function toWebhookRecord(subscription: WebhookSubscription, now = new Date()): WebhookRecord {
  return {
    webhook_id: subscription.id,
    url: subscription.url,
    events: subscription.events as EventKind[],
    department_ids: subscription.departmentIds,
    tags: subscription.tags,
    statuses: subscription.statuses as ApiStatus[],
    status: subscription.status,
    created_at: subscription.createdAt.toISOString(),
    updated_at: subscription.updatedAt.toISOString(),
    disabled_at: subscription.disabledAt?.toISOString() ?? null,
    disabled_reason: subscription.disabledReason,
    previous_secret_expires_at: subscription.previousSecretExpiresAt && subscription.previousSecretExpiresAt > now ? subscription.previousSecretExpiresAt.toISOString() : null,
  }
}

/** The record with its last delivery attempt, as the portal's lists show it ("last delivery: 200"). */
export function toWebhookRecordWithLastDelivery(subscription: WebhookSubscription, last: LastDeliveryResult | null | undefined) {
  return {
    ...toWebhookRecord(subscription),
    last_delivery: last
      ? { at: last.at.toISOString(), response_status: last.responseStatus, duration_ms: last.durationMs, error: last.error, succeeded: last.succeeded }
      : null,
  }
}
