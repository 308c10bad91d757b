import { logger } from '../ops/logger.ts'
import { systemDb } from '../tenancy/tenant-db.ts'
import type { OutboxRow } from './event-queue.ts'
import { outboxMarksIn, QueueNotConfiguredError, sendOutboxEvents } from './send-outbox-events.ts'

export type SweepResult = { sent: number; remaining: boolean; error: string | null }

// A batch's rows stay locked while Inngest is called: up to five attempts of at most 10 s
// each (the Inngest client's timeout and the SDK's retries), so the transaction may take that long.
const batchTransaction = { maxWait: 10_000, timeout: 90_000 }

/**
 * Re-sends outbox events that never reached Inngest, oldest first, in bounded batches.
 * Run at start-up (scheduleStartupSweep, from instrumentation.ts) and every minute (the
 * outbox-sweeper function).
 * `minAgeMs` leaves fresh events to the request that is sending them right now; a double
 * send would be harmless anyway, since Inngest deduplicates by event id.
 *
 * Each batch is claimed with FOR NO KEY UPDATE SKIP LOCKED and marked sent in the same
 * transaction, so sweeps running side by side (several instances starting, an overlapping
 * cron run) take different rows instead of all sending the same oldest ones. NO KEY keeps
 * the lock from blocking deliveries being inserted for those events (their foreign key
 * takes KEY SHARE locks).
 */
export async function sweepOutbox(options: { batchSize?: number; maxBatches?: number; minAgeMs?: number } = {}): Promise<SweepResult> {
  const batchSize = options.batchSize ?? 100
  const maxBatches = options.maxBatches ?? 10
  const db = systemDb()
  let sent = 0
  for (let batch = 0; batch < maxBatches; batch++) {
    const cutoff = new Date(Date.now() - (options.minAgeMs ?? 0))
    const outcome = await db.$transaction(async (tx) => {
      const rows = await tx.$queryRaw<OutboxRow[]>`
        SELECT id, tenant_id AS "tenantId", kind, occurred_at AS "occurredAt", data
        FROM events
        WHERE sent_to_queue_at IS NULL AND created_at <= ${cutoff}
        ORDER BY created_at ASC, id ASC
        LIMIT ${batchSize}
        FOR NO KEY UPDATE SKIP LOCKED`
      if (rows.length === 0) return { claimed: 0, sent: 0 }
      try {
        return { claimed: rows.length, sent: await sendOutboxEvents(rows, outboxMarksIn(tx)) }
      } catch (error) {
        // Returned, not thrown: the failed attempt recorded on the rows must commit.
        return { claimed: rows.length, sent: 0, error }
      }
    }, batchTransaction)
    sent += outcome.sent
    if ('error' in outcome) {
      // Inngest is unreachable (or not configured): the rest will fare no better now.
      const error = outcome.error
      const message = error instanceof QueueNotConfiguredError ? error.message : `Inngest refused or did not answer: ${(error as Error).message}`
      return { sent, remaining: true, error: message }
    }
    if (outcome.claimed === 0) return { sent, remaining: false, error: null }
    if (outcome.claimed < batchSize) return { sent, remaining: false, error: null }
  }
  return { sent, remaining: true, error: null }
}

/** Events left in the outbox by a previous run (the queue was down) go out once the server is up. */
export function scheduleStartupSweep(delayMs = 10_000): void {
  const timer = setTimeout(async () => {
    const result = await sweepOutbox().catch((error: Error) => ({ sent: 0, remaining: true, error: error.message }))
    if (result.sent > 0) logger.info({ outbox: 'start_up_sweep', sent: result.sent }, 'events an earlier run left in the outbox were sent')
  }, delayMs)
  timer.unref()
}
