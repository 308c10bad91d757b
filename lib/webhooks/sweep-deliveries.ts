import { systemDb } from '../tenancy/tenant-db.ts'

/**
 * How long a pending delivery may sit past its due time (or, before its first attempt, past
 * its creation) before the sweeper treats its run as lost: longer than any attempt (10 s),
 * than Inngest's own step retries, and than a backlog behind the per-subscription concurrency
 * limit is likely to be; a false positive costs only a run that stops at once.
 */
export const stuckAfterMs = 15 * 60_000

export type RequeuedDelivery = { deliveryId: string; subscriptionId: string; tenantId: string; eventId: string; kind: string; generation: number }

/**
 * Claims the deliveries whose run will not come back, and gives each the next run
 * generation, so the run re-requested with it owns the delivery and any older run still
 * alive stops at its next attempt. Two kinds, both of enabled subscriptions only:
 * - held: a run found the subscription paused and left the delivery waiting; it has been resumed.
 * - stuck: pending, and overdue by stuckAfterMs, because its run exhausted Inngest's retries
 *   on infrastructure errors (database down, the app unreachable) or was lost.
 * Rows are claimed with SKIP LOCKED, so overlapping sweeps take different deliveries.
 */
export async function claimDeliveriesToRequeue(options: { now?: Date; limit?: number } = {}): Promise<RequeuedDelivery[]> {
  const now = options.now ?? new Date()
  const cutoff = new Date(now.getTime() - stuckAfterMs)
  const limit = options.limit ?? 500
  return systemDb().$queryRaw<RequeuedDelivery[]>`
    WITH claimed AS (
      SELECT d.id
      FROM deliveries d
      JOIN webhook_subscriptions s ON s.id = d.subscription_id
      WHERE d.status = 'pending' AND s.status = 'enabled'
        AND (d.held_at IS NOT NULL OR COALESCE(d.next_attempt_at, d.created_at) < ${cutoff})
      ORDER BY COALESCE(d.next_attempt_at, d.created_at) ASC, d.id ASC
      LIMIT ${limit}
      FOR UPDATE OF d SKIP LOCKED
    )
    UPDATE deliveries d
    SET run_generation = d.run_generation + 1, held_at = NULL, next_attempt_at = ${now}, updated_at = ${now}
    FROM claimed, events e
    WHERE d.id = claimed.id AND e.id = d.event_id
    RETURNING d.id AS "deliveryId", d.subscription_id AS "subscriptionId", d.tenant_id AS "tenantId", d.event_id AS "eventId", e.kind, d.run_generation AS "generation"`
}
