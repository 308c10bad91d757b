import type { RecordedEvent } from './record-event.ts'

type Dispatcher = (events: RecordedEvent[]) => Promise<void>

let dispatcher: Dispatcher | undefined

/**
 * Hands committed events to the queue (Inngest). Never throws: an event that cannot be
 * sent now stays in the outbox and the sweeper re-sends it, so the caller's change, which
 * has already committed, is never reported as failed because of it.
 */
export async function dispatchEvents(events: RecordedEvent[]): Promise<void> {
  if (events.length === 0 || !dispatcher) return
  try {
    await dispatcher(events)
  } catch (error) {
    console.warn(`[outbox] ${events.length} event(s) left in the outbox for the sweeper: ${(error as Error).message}`)
  }
}

/** Installed once by the queue integration (inngest/). */
export function setEventDispatcher(next: Dispatcher | undefined): void {
  dispatcher = next
}
