import { systemDb } from '../tenancy/tenant-db.ts'
import { QueueNotConfiguredError, sendOutboxEvents } from './send-outbox-events.ts'

export type SweepResult = { sent: number; remaining: boolean; error: string | null }

/**
 * Re-sends outbox events that never reached Inngest, oldest first, in bounded batches.
 * Run at start-up (scripts/serve.ts) and every minute (the outbox-sweeper function).
 * `minAgeMs` leaves fresh events to the request that is sending them right now; a double
 * send would be harmless anyway, since Inngest deduplicates by event id.
 */
export async function sweepOutbox(options: { batchSize?: number; maxBatches?: number; minAgeMs?: number } = {}): Promise<SweepResult> {
  const batchSize = options.batchSize ?? 100
  const maxBatches = options.maxBatches ?? 10
  const db = systemDb()
  let sent = 0
  for (let batch = 0; batch < maxBatches; batch++) {
    const rows = await db.event.findMany({
      where: { sentToQueueAt: null, createdAt: { lte: new Date(Date.now() - (options.minAgeMs ?? 0)) } },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take: batchSize,
      select: { id: true, tenantId: true, kind: true, occurredAt: true, data: true },
    })
    if (rows.length === 0) return { sent, remaining: false, error: null }
    try {
      sent += await sendOutboxEvents(rows)
    } catch (error) {
      // Inngest is unreachable (or not configured): the rest will fare no better now.
      const message = error instanceof QueueNotConfiguredError ? error.message : `Inngest refused or did not answer: ${(error as Error).message}`
      return { sent, remaining: true, error: message }
    }
    if (rows.length < batchSize) return { sent, remaining: false, error: null }
  }
  return { sent, remaining: true, error: null }
}
