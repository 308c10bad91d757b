import { sqlPool } from '../db/client.ts'
import { deleteInBatches, type SqlRunner } from '../db/delete-in-batches.ts'
import { internalEventKinds } from '../events/event-kinds.ts'
import { deliveryLogRetentionDays } from './delivery-log-retention.ts'

// Small batches keep each delete's locks and WAL short beside live deliveries.
const batchSize = 5_000

/**
 * Deletes the webhook deliveries log's old entries: finished deliveries (their attempts, with
 * the request and response bodies kept for the log, go with them) and then the events no
 * delivery refers to any longer. Without it every event, delivery and attempt was kept forever.
 * Kept whatever their age: deliveries still pending or held for a paused subscription, events
 * not yet handed to the queue or handed to it within the period (it may not have fanned them
 * out yet), and the service's own scheduling events until the moment they scheduled is older
 * than the period (nothing reads them once handed on; a schedule months ahead keeps its event
 * until then). `database` lets a test run it inside a transaction it rolls back.
 */
export async function pruneDeliveryLog(now = new Date(), database: SqlRunner = sqlPool): Promise<{ deliveries: number; events: number }> {
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
  const events = await deleteInBatches(
    database,
    `DELETE FROM events WHERE id IN (
       SELECT id FROM events WHERE sent_to_queue_at < $1 AND created_at < $1
         AND CASE WHEN kind = ANY($2::text[]) THEN (data->>'publish_at')::timestamptz < $1 ELSE true END
         AND NOT EXISTS (SELECT 1 FROM deliveries WHERE deliveries.event_id = events.id)
       LIMIT $3)`,
    [cutoff, internalEventKinds],
    batchSize,
  )
  return { deliveries, events }
}
