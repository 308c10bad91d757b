import { webhookTestKind } from './manual-deliveries.ts'
import { systemDb } from '../tenancy/tenant-db.ts'
import { assertCan } from '../auth/permissions.ts'
import type { Actor } from '../tenancy/actor.ts'

export type LastDeliveryResult = {
  at: Date
  responseStatus: number | null
  durationMs: number
  error: string | null
  succeeded: boolean
  /** A one-off test event (sent once, never retried). */
  test: boolean
  /** When the delivery is tried again; null when it will not be (it succeeded, was a test, or used up its retries). */
  nextAttemptAt: Date | null
}

/**
 * The most recent delivery attempt of each subscription, for the portal's list ("last
 * delivery: 200 two minutes ago"). One query for the whole page instead of one per row.
 */
export async function lastDeliveryResults(actor: Actor, subscriptionIds: string[]): Promise<Map<string, LastDeliveryResult>> {
  assertCan(actor, 'webhooks:manage')
  const tenantId = actor.tenant.id
  const results = new Map<string, LastDeliveryResult>()
  if (subscriptionIds.length === 0) return results
  const rows = await systemDb().$queryRaw<
    { subscription_id: string; at: Date; response_status: number | null; duration_ms: number; error: string | null; kind: string; status: string; next_attempt_at: Date | null }[]
  >`
    SELECT DISTINCT ON (d.subscription_id) d.subscription_id, a.at, a.response_status, a.duration_ms, a.error, e.kind, d.status::text AS status, d.next_attempt_at
    FROM delivery_attempts a
    JOIN deliveries d ON d.id = a.delivery_id
    JOIN events e ON e.id = d.event_id
    WHERE d.tenant_id = ${tenantId} AND d.subscription_id = ANY(${subscriptionIds})
    ORDER BY d.subscription_id, a.at DESC, a.attempt DESC`
  for (const row of rows) {
    const status = row.response_status
    results.set(row.subscription_id, {
      at: row.at,
      responseStatus: status,
      durationMs: row.duration_ms,
      error: row.error,
      succeeded: status !== null && status >= 200 && status < 300,
      test: row.kind === webhookTestKind,
      nextAttemptAt: row.status === 'pending' && row.kind !== webhookTestKind ? row.next_attempt_at : null,
    })
  }
  return results
}
