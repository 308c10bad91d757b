import { sqlPool } from '../db/client.ts'
import { deleteInBatches, type SqlRunner } from '../db/delete-in-batches.ts'
import { eventsChanged } from './event-generation.ts'
import { internalEventKinds } from './event-kinds.ts'
import { eventsRetentionDays } from './event-schemas.ts'

const batchSize = 5_000

/**
 * Deletes events past the events API's retention period (EVENTS_RETENTION_DAYS, 30 by
 * default), newsroom by newsroom along events_tenant_order_idx. One rule decides how long an
 * event stays, so the API keeps its promise whatever the deliveries log's own period:
 * an event is kept at least the events period, and longer while any delivery refers to it
 * (the deliveries log keeps finished deliveries DELIVERY_LOG_RETENTION_DAYS). Also kept,
 * whatever their age: events not yet handed to the queue or handed to it within the period
 * (it may not have fanned them out yet), and the service's own scheduling events until the
 * moment they scheduled is older than the period (a schedule months ahead keeps its event).
 */
export async function pruneEvents(now = new Date(), database: SqlRunner = sqlPool): Promise<{ events: number }> {
  const cutoff = new Date(now.getTime() - eventsRetentionDays() * 86_400_000)
  const { rows: tenants } = await database.query<{ id: string }>('SELECT id FROM tenants')
  let events = 0
  for (const tenant of tenants) {
    const deleted = await deleteInBatches(
      database,
      `DELETE FROM events WHERE id IN (
         SELECT id FROM events WHERE tenant_id = $1 AND occurred_at < $2 AND created_at < $2 AND sent_to_queue_at < $2
           AND CASE WHEN kind = ANY($3::text[]) THEN (data->>'publish_at')::timestamptz < $2 ELSE true END
           AND NOT EXISTS (SELECT 1 FROM deliveries WHERE deliveries.event_id = events.id)
         LIMIT $4)`,
      [tenant.id, cutoff, internalEventKinds],
      batchSize,
    )
    // Cached pages of the events API that showed the deleted events are not served again.
    if (deleted > 0) await eventsChanged([tenant.id])
    events += deleted
  }
  return { events }
}
