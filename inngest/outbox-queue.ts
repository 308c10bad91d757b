import { eventEnvelope, type EventEnvelope } from '../lib/events/event-envelope.ts'
import { registerEventQueue, type EventQueue, type OutboxRow } from '../lib/events/event-queue.ts'
import { inngest, queueConfigured } from './client.ts'
import { outboxEventName } from './events.ts'
import { isEventKind } from '../lib/events/event-kinds.ts'

// Inngest refuses large events; the functions read the outbox row anyway, so an event whose
// data is big (an article with a long body) travels without it.
const maxInlineDataBytes = 200 * 1024

/** An outbox row as an Inngest event: its id is the outbox id, so a re-send is deduplicated. */
export function toInngestEvent(row: OutboxRow) {
  const envelope: EventEnvelope = eventEnvelope(row)
  const tooLarge = Buffer.byteLength(JSON.stringify(envelope.data ?? null)) > maxInlineDataBytes
  return {
    id: row.id,
    name: outboxEventName(row.kind),
    data: tooLarge ? { ...envelope, data: null, data_omitted: true } : envelope,
    ts: row.occurredAt.getTime(),
  }
}

/** The outbox's queue is Inngest: lib/events sends through this, and knows nothing of Inngest. */
export const inngestEventQueue: EventQueue = {
  configured: queueConfigured,
  async send(rows) {
    await inngest.send(rows.map(toInngestEvent))
  },
  // The functions that take outbox events: fan-out-event (public kinds, for their subscribers)
  // and publish-scheduled-article (the internal kind, always).
  async wanted(rows) {
    // Loaded on first use: importing this module must not open the database (every entry point
    // imports it, some before they have chosen their DATABASE_URL).
    const { eventsWithSubscribers } = await import('../lib/webhooks/create-deliveries.ts')
    const subscribed = await eventsWithSubscribers(rows)
    return rows.map((row, index) => !isEventKind(row.kind) || subscribed[index]!)
  },
}

// Importing this module is what connects a process's outbox to Inngest.
registerEventQueue(inngestEventQueue)
