import { z } from 'zod'
import type { oas31 } from 'zod-openapi'
import { articleSchema } from '../../articles/article-schemas.ts'
import { eventKindGroups } from '../../events/event-kinds.ts'
import { eventPathSchema, listEventsQuerySchema } from '../../events/event-schemas.ts'
import { declareOperation, operationPaths } from '../openapi/api-operation.ts'
import { validationErrors } from '../openapi/validation-examples.ts'
import { eventEnvelopeSchema } from './webhook-operations.ts'

export const eventTags: oas31.TagObject[] = [
  {
    name: 'Events',
    description:
      "Every event of the newsroom of the last 30 days, each exactly as its webhooks carry it (the same `event_id`, the same `data`): catch up after an outage, replay in order, or audit what happened without running a receiver.",
  },
]

export const eventListSchema = z
  .object({
    items: z.array(eventEnvelopeSchema),
    limit: z.number().int(),
    next_cursor: z.string().nullable().meta({ description: 'Send it as `cursor` (same filters and sort) for the next page; null on the last page.' }),
  })
  .meta({ id: 'EventList' })

const published = {
  event_id: 'evt_0mhx5e2g4i6k8m0o2q4s6u8w0y',
  event: 'article.published',
  tenant_id: 'ten_0mhx0a1b2c3d4e5f6g7h8i9j0k',
  occurred_at: '2026-11-20T09:30:00.000Z',
  data: articleSchema.parse(articleSchema.meta()?.example),
}
const transitioned = {
  event_id: 'evt_0mhx5e2g4i6k8m0o2q4s6u8w0x',
  event: 'workflow.transitioned',
  tenant_id: 'ten_0mhx0a1b2c3d4e5f6g7h8i9j0k',
  occurred_at: '2026-11-20T09:30:00.000Z',
  data: { article_id: published.data.article_id, from_state: 'approved', to_state: 'published', actor_id: 'usr_0mhx2k1s9q3v8w4t6y1z2a3b4c' },
}

const kindList = Object.values(eventKindGroups).flat().map((kind) => `\`${kind}\``).join(', ')

export const listEventsOperation = declareOperation({
  method: 'GET',
  path: '/v1/events',
  query: listEventsQuerySchema,
  operationId: 'listEvents',
  summary: 'List events',
  tags: ['Events'],
  scope: 'events:read',
  description: [
    "The newsroom's events, newest first, each the envelope its webhook deliveries carry, byte for byte the same `data`. Every event is listed whether or not a subscription asked for it.",
    '',
    `- \`type\`: one kind or several, comma-separated (${kindList}).`,
    '- `article_id`: the events about one article (its `article.*` and `workflow.transitioned` events).',
    '- `created_after` / `created_before`: by `occurred_at`, both exclusive.',
    '- `sort=created_at`: oldest first, to replay in order.',
    '',
    'Events are kept at least 30 days (the operator\'s `EVENTS_RETENTION_DAYS`), and longer while a webhook delivery of them is kept.',
    '',
    '**Paging:** by cursor only: `limit` 1 to 200 (default 50); send `next_cursor` back as `cursor` with the same filters and sort. Newest first, `next_cursor` is null on the last page. There is no `total`: counting a month of a busy newsroom\'s events would cost more than the page.',
    '',
    '**Catching up** (`sort=created_at`) is a feed, like articles\' `sort=updated_at`, but it shows an event only once it is 10 s old (the operator\'s `SYNC_SETTLE_MS`), so one committed late is never behind a cursor you already hold, and every page, an empty one too, has a `next_cursor`. ' +
      'Keep the last one and ask with it again later: the page holds what happened since, oldest first. After an outage longer than the retention period, start again with `created_after`.',
    '',
    '**Caching:** answers carry a strong `ETag` (of the page: it changes when any of its events or the next cursor does, so at once when a new event is listed or an old one is removed by retention) and `Cache-Control: private, no-cache`. ' +
      'Send the `ETag` back as `If-None-Match` and an unchanged page is a `304` with no body.',
  ].join('\n'),
  requestParams: { query: listEventsQuerySchema },
  conditional: true,
  success: {
    status: 200,
    description: 'A page of events.',
    schema: eventListSchema,
    headers: ['ETag'],
    examples: { page: { summary: 'A publication and the move that made it', value: { items: [published, transitioned], limit: 50, next_cursor: null } } },
  },
  problems: [
    {
      code: 'validation_failed',
      when: 'A parameter is out of range, malformed or unknown, an event kind does not exist, or the cursor belongs to other filters.',
      detail: 'The request query parameters have invalid fields; see errors.',
      errors: validationErrors(listEventsQuerySchema, { type: 'article.deleted' }),
    },
  ],
})

export const getEventOperation = declareOperation({
  method: 'GET',
  path: '/v1/events/{event_id}',
  params: eventPathSchema,
  operationId: 'getEvent',
  summary: 'Get an event',
  tags: ['Events'],
  scope: 'events:read',
  description: 'One event, the envelope its webhook deliveries carry. A delivery\'s `event_id` (in the deliveries log, or the body your receiver got) names it.',
  requestParams: { path: eventPathSchema },
  success: { status: 200, description: 'The event.', schema: eventEnvelopeSchema, examples: { published: { summary: 'article.published', value: published } } },
  problems: [
    {
      code: 'not_found',
      when: "No event with this id in the token's newsroom (another newsroom's included), or it is older than the retention period.",
      detail: "No event with id 'evt_0mhx5e2g4i6k8m0o2q4s6u8w0y' exists in this newsroom.",
    },
  ],
})

export const eventPaths = operationPaths([listEventsOperation, getEventOperation])
