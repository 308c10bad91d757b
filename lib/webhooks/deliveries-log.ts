import type { Delivery, DeliveryAttempt } from '../db/generated/client.ts'
import type { Actor } from '../tenancy/actor.ts'
import { tenantDb } from '../tenancy/tenant-db.ts'
import { getWebhook } from './manage-subscriptions.ts'
import type { DeliveryRecord, ListDeliveriesQuery } from './webhook-schemas.ts'
import { newestFirstPage } from '../newest-first-cursor.ts'
import type { Page } from '../pagination.ts'

export type DeliveryWithAttempts = Delivery & { attempts: DeliveryAttempt[]; event: { kind: string } }
export type DeliveryPage = Page<DeliveryWithAttempts>

/** A subscription's deliveries, newest first, each with every attempt in order. */
export async function listDeliveries(actor: Actor, webhookId: string, query: ListDeliveriesQuery): Promise<DeliveryPage> {
  await getWebhook(actor, webhookId)
  const tdb = tenantDb(actor.tenant.id)
  const where = { subscriptionId: webhookId }
  return newestFirstPage({ tenantId: actor.tenant.id, list: `deliveries:${webhookId}`, filter: {} }, query, (row) => row.createdAt.getTime(), (after) =>
    Promise.all([
      tdb.delivery.findMany({
        where: { ...where, ...(after ? { OR: [{ createdAt: { lt: new Date(after.key) } }, { createdAt: new Date(after.key), id: { lt: after.id } }] } : {}) },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        skip: after ? 0 : query.offset,
        take: query.limit,
        include: { attempts: { orderBy: { attempt: 'asc' } }, event: { select: { kind: true } } },
      }),
      tdb.delivery.count({ where }),
    ]),
  )
}

export function toDeliveryRecord(delivery: DeliveryWithAttempts): DeliveryRecord {
  return {
    delivery_id: delivery.id,
    event_id: delivery.eventId,
    event: delivery.event.kind,
    status: delivery.status,
    attempts: delivery.attempts.map((attempt) => ({
      attempt: attempt.attempt,
      at: attempt.at.toISOString(),
      response_status: attempt.responseStatus,
      duration_ms: attempt.durationMs,
      error: attempt.error,
      request: attempt.requestBody === null ? null : { headers: asHeaders(attempt.requestHeaders), body: attempt.requestBody },
      response: attempt.responseHeaders === null ? null : { headers: asHeaders(attempt.responseHeaders), body: attempt.responseBody ?? '', body_truncated: attempt.responseBodyTruncated },
    })),
    next_attempt_at: delivery.nextAttemptAt?.toISOString() ?? null,
    created_at: delivery.createdAt.toISOString(),
  }
}

/** Stored headers back as a plain name → value map. */
export function asHeaders(value: unknown): Record<string, string> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return {}
  return Object.fromEntries(Object.entries(value).map(([name, text]) => [name, String(text)]))
}
