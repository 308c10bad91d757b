import { eventType, staticSchema } from 'inngest'
import type { EventEnvelope } from '../lib/events/event-envelope.ts'
import { eventKindGroups, internalEventKinds } from '../lib/events/event-kinds.ts'

// The names and shapes of what travels through Inngest. Outbox events keep their kind in
// the name (newsroom/article.published), so runs are easy to find in Inngest's dashboard.

export const eventNamePrefix = 'newsroom/'

export function outboxEventName(kind: string): string {
  return `${eventNamePrefix}${kind}`
}

/**
 * The public kinds, matched with one wildcard per group (Inngest allows ten triggers per
 * function). Internal kinds that share a group's prefix (article.publish_scheduled) are
 * filtered out by the trigger's condition.
 */
export const publicEventTriggers = Object.values(eventKindGroups).map((kinds) => {
  const prefix = `${kinds[0].split('.')[0]!}.`
  const excluded = internalEventKinds.filter((kind) => kind.startsWith(prefix)).map((kind) => `event.name != '${outboxEventName(kind)}'`)
  return { event: `${eventNamePrefix}${prefix}*`, ...(excluded.length > 0 && { if: excluded.join(' && ') }) }
})

export const publishScheduledEvent = eventType(outboxEventName('article.publish_scheduled'), {
  schema: staticSchema<EventEnvelope<{ article_id: string; publish_at: string }>>(),
})

/**
 * `generation` is absent (0) for the fan-out's request; the delivery sweeper re-requests a
 * stuck or held delivery with the next one, which makes any older run of it stop.
 */
export type DeliveryRequestedData = { delivery_id: string; subscription_id: string; tenant_id: string; event_id: string; kind: string; generation?: number }

export const deliveryRequestedEvent = eventType('newsroom/webhook.delivery_requested', { schema: staticSchema<DeliveryRequestedData>() })
