import { articlesChanged } from '../articles/article-totals.ts'
import type { RecordedEvent } from './record-event.ts'
import { handOffToQueue } from './queue-hand-off.ts'

/**
 * Announces committed events: cached article totals of their tenants are dropped before the
 * writer answers (so its next list counts the change), and the events are handed to the
 * queue without waiting for it. The write has committed its events to the outbox, which stays
 * the source of truth: an event the queue does not take now is re-sent by the sweeper, so an
 * unreachable or slow Inngest never makes a write slow and never loses an event.
 */
export async function dispatchEvents(events: RecordedEvent[]): Promise<void> {
  if (events.length === 0) return
  // Every kind counts (a transition's only event is workflow.transitioned); other kinds are rare.
  await articlesChanged(events.map((event) => event.tenantId))
  handOffToQueue(events)
}
