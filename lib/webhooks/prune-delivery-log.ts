import { sqlPool } from '../db/client.ts'
import { deleteInBatches, type SqlRunner } from '../db/delete-in-batches.ts'
import { deliveryLogRetentionDays } from './delivery-log-retention.ts'

// Small batches keep each delete's locks and WAL short beside live deliveries.
const batchSize = 5_000

/**
 * Deletes the webhook deliveries log's old entries: finished deliveries, with their attempts
 * (which hold the request and response bodies kept for the log). Deliveries still pending or
 * held for a paused subscription are kept whatever their age. Their events are not deleted
 * here: they belong to the events API, which keeps them for its own period (pruneEvents,
 * lib/events/prune-events.ts) and never while a delivery still refers to them. `database`
 * lets a test run it inside a transaction it rolls back.
 */
export async function pruneDeliveryLog(now = new Date(), database: SqlRunner = sqlPool): Promise<{ deliveries: number }> {
  const cutoff = new Date(now.getTime() - deliveryLogRetentionDays() * 86_400_000)
  // Subscription by subscription, through the (subscription_id, created_at) index: deliveries
  // have no index on created_at alone, and each batch would otherwise scan the whole table.
  const { rows: subscriptions } = await database.query<{ id: string }>('SELECT id FROM webhook_subscriptions')
  let deliveries = 0
  for (const subscription of subscriptions) {
    deliveries += await deleteInBatches(
      database,
      `DELETE FROM deliveries WHERE id IN (
         SELECT id FROM deliveries WHERE subscription_id = $1 AND created_at < $2 AND status IN ('succeeded', 'failed') LIMIT $3)`,
      [subscription.id, cutoff],
      batchSize,
    )
  }
  return { deliveries }
}
