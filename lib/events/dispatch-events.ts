import { articlesChanged } from '../articles/article-totals.ts'
import type { RecordedEvent } from './record-event.ts'
import { QueueNotConfiguredError, sendOutboxEvents } from './send-outbox-events.ts'

// How long a request waits for Inngest to take its events. A slow Inngest must not make the
// API slow: after this the send goes on in the background, and the sweeper covers a loss.
const waitForQueueMs = 3_000

let warnedNotConfigured = false

/**
 * Announces committed events: cached article totals of their tenants are dropped, and the
 * events go to the queue (Inngest). Never throws: an event that cannot be
 * sent now stays in the outbox and the sweeper re-sends it, so the caller's change, which
 * has already committed, is never reported as failed because of it.
 */
export async function dispatchEvents(events: RecordedEvent[]): Promise<void> {
  if (events.length === 0) return
  // Before the writer answers its client, so its next list counts the change. Every kind
  // counts (a transition's only event is workflow.transitioned); other kinds are rare.
  await articlesChanged(events.map((event) => event.tenantId))
  const sending = sendOutboxEvents(events).catch((error: unknown) => {
    if (error instanceof QueueNotConfiguredError) {
      if (!warnedNotConfigured) console.warn(`[outbox] ${error.message}`)
      warnedNotConfigured = true
      return
    }
    console.warn(`[outbox] ${events.length} event(s) left in the outbox for the sweeper: ${(error as Error).message}`)
  })
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, waitForQueueMs)
    timer.unref()
  })
  await Promise.race([sending, deadline])
  clearTimeout(timer)
}
