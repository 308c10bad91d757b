import type { Actor } from '../tenancy/actor.ts'
import { tenantSql } from '../tenancy/tenant-sql.ts'
import { getWebhook } from './manage-subscriptions.ts'

export type WebhookOverview = {
  /** Attempts made in the last 24 hours (automatic, retries, tests and redeliveries). */
  attempts24h: number
  /** Of those, answered with a 2xx. */
  succeeded24h: number
  /** Deliveries not yet succeeded or given up: waiting for their next attempt, or held while paused. */
  pending: number
  /** Of the pending, held until the subscription is resumed. */
  held: number
}

export const overviewWindowHours = 24

/**
 * The figures at the top of a webhook's page: how its receiver did over the last day, and what
 * still waits to reach it. One statement, scoped to the newsroom.
 */
export async function webhookOverview(actor: Actor, webhookId: string): Promise<WebhookOverview> {
  await getWebhook(actor, webhookId)
  const [row] = await tenantSql(actor.tenant.id).rows<{ attempts: number; succeeded: number; pending: number; held: number }>(
    `SELECT
       (SELECT count(*)::int FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
         WHERE d.tenant_id = $1 AND d.subscription_id = $2 AND a.at > now() - make_interval(hours => $3)) AS attempts,
       (SELECT count(*)::int FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
         WHERE d.tenant_id = $1 AND d.subscription_id = $2 AND a.at > now() - make_interval(hours => $3) AND a.response_status BETWEEN 200 AND 299) AS succeeded,
       (SELECT count(*)::int FROM deliveries WHERE tenant_id = $1 AND subscription_id = $2 AND status = 'pending') AS pending,
       (SELECT count(*)::int FROM deliveries WHERE tenant_id = $1 AND subscription_id = $2 AND status = 'pending' AND held_at IS NOT NULL) AS held`,
    [webhookId, overviewWindowHours],
  )
  return { attempts24h: row?.attempts ?? 0, succeeded24h: row?.succeeded ?? 0, pending: row?.pending ?? 0, held: row?.held ?? 0 }
}
