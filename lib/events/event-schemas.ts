import { z } from 'zod'
import { withoutNul } from '../validation.ts'
import { eventKinds, type EventKind } from './event-kinds.ts'

// The events API's query shapes; validation, types and the OpenAPI document come from these.

const timestamp = z.iso.datetime({ offset: true })

/** How long the events API promises to keep an event (EVENTS_RETENTION_DAYS, 30 by default). */
export function eventsRetentionDays(): number {
  const configured = Number(process.env.EVENTS_RETENTION_DAYS ?? 30)
  return Number.isFinite(configured) && configured > 0 ? configured : 30
}

export const maxEventsPageSize = 200

const kindList = withoutNul(z.string().min(1).max(2_000))
  .transform((value, context) => {
    const kinds = [...new Set(value.split(',').map((kind) => kind.trim()).filter(Boolean))]
    const unknown = kinds.filter((kind) => !(eventKinds as readonly string[]).includes(kind))
    if (unknown.length > 0 || kinds.length === 0) {
      context.addIssue({ code: 'custom', message: `Unknown event kind '${unknown[0] ?? value}'. Allowed: ${eventKinds.join(', ')}.` })
      return z.NEVER
    }
    return kinds as EventKind[]
  })
  .meta({ description: 'One event kind, or several separated by commas (any of them).', example: 'article.published,article.unpublished' })

export const listEventsQuerySchema = z
  .strictObject({
    type: kindList.optional(),
    article_id: withoutNul(z.string().min(1).max(64)).optional().meta({ description: 'Only events about this article (`art_…`): its `article.*` and `workflow.transitioned` events.', example: 'art_0mhx2k1s9q3v8w4t6y1z2a3b4c' }),
    created_after: timestamp.optional().meta({ description: 'Only events that occurred after this instant (exclusive), by `occurred_at`.', example: '2026-11-20T09:00:00.000Z' }),
    created_before: timestamp.optional().meta({ description: 'Only events that occurred before this instant (exclusive), by `occurred_at`.', example: '2026-11-21T09:00:00.000Z' }),
    sort: z
      .enum(['-created_at', 'created_at'], { error: 'sort can be -created_at (newest first, the default) or created_at (oldest first, to replay).' })
      .default('-created_at')
      .meta({ description: '`-created_at` (default): newest first. `created_at`: oldest first, to replay what happened in order. Both by `occurred_at`, then `event_id`.' }),
    limit: z.coerce.number().int('limit must be a whole number.').min(1, `limit must be 1 to ${maxEventsPageSize}.`).max(maxEventsPageSize, `limit must be 1 to ${maxEventsPageSize}.`).default(50).meta({ description: `Page size, 1 to ${maxEventsPageSize}.` }),
    cursor: withoutNul(z.string().min(1).max(1_024))
      .optional()
      .meta({ description: "The previous page's `next_cursor`, with the same filters and sort: the page after it." }),
  })
  .meta({ id: 'ListEventsQuery' })

export type ListEventsQuery = z.infer<typeof listEventsQuerySchema>

export const eventPathSchema = z.object({
  event_id: withoutNul(z.string().min(1).max(200)).meta({ description: "The event's identifier (`evt_…`), as in a delivery's `event_id`.", example: 'evt_0mhx2k1s9q3v8w4t6y1z2a3b4c' }),
})
