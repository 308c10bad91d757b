import type { RecordedEvent } from './record-event.ts'
import { QueueNotConfiguredError, queueLastFailedAt, sendOutboxEvents } from './send-outbox-events.ts'
import { logger } from '../ops/logger.ts'

// After a failed send, writes stop trying the queue for this long and leave their events to
// the sweeper: an unreachable Inngest costs one failing request per interval, not one per write,
// and once it is back the next write after the interval finds it.
const pauseAfterFailureMs = () => Number(process.env.QUEUE_PAUSE_AFTER_FAILURE_MS ?? 5_000)

let waiting: RecordedEvent[] = []
let flushing: Promise<void> | null = null
let warnedNotConfigured = false

/**
 * Sends committed events to the queue off the response path. Events from writes that commit
 * while a send is in flight join the next send, so under load one request to Inngest carries
 * many writes' events. Never throws: unsent events stay in the outbox for the sweeper.
 */
export function handOffToQueue(events: RecordedEvent[]): void {
  const failedAt = queueLastFailedAt()
  if (failedAt !== null && Date.now() - failedAt < pauseAfterFailureMs()) return
  waiting.push(...events)
  flushing ??= flush()
}

/** Resolves once the events handed off so far have been sent or left to the sweeper (shutdown, tests). */
export async function queueHandOffSettled(): Promise<void> {
  while (flushing) await flushing
}

async function flush(): Promise<void> {
  // Let the writes committing in this turn of the event loop join the first send.
  await new Promise((resolve) => setImmediate(resolve))
  while (waiting.length > 0) {
    const batch = waiting
    waiting = []
    try {
      await sendOutboxEvents(batch)
    } catch (error) {
      if (error instanceof QueueNotConfiguredError) {
        if (!warnedNotConfigured) logger.warn({ outbox: 'not_configured' }, error.message)
        warnedNotConfigured = true
      } else {
        logger.warn({ outbox: 'send_failed', events: batch.length + waiting.length, error: (error as Error).message }, 'events left in the outbox for the sweeper')
      }
      // The queue did not take these; the rest would fare no better now. All are in the outbox.
      waiting = []
    }
  }
  flushing = null
}
