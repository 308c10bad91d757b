import { z } from 'zod'
import { apiStatuses } from '../articles/article-status.ts'
import { eventKinds, type EventKind } from '../events/event-kinds.ts'
import { withoutNul } from '../validation.ts'

// The single source of the webhook API's shapes: validation, TypeScript types and the
// OpenAPI document all come from these schemas.

const timestamp = z.iso.datetime({ offset: true })
const webhookIdExample = 'whk_0mhx2k1s9q3v8w4t6y1z2a3b4c'

/** A subscription id as it arrives in a path or a portal call; the routes and procedures share it. */
export const webhookIdSchema = withoutNul(z.string().min(1).max(200)).meta({ description: 'The subscription id.', example: webhookIdExample })

export const webhookPathSchema = z.object({ webhook_id: webhookIdSchema })

export const eventKindSchema = z
  .enum(eventKinds as [EventKind, ...EventKind[]], { error: (issue) => `Unknown event kind '${String(issue.input)}'. Allowed: ${eventKinds.join(', ')}.` })
  .meta({ id: 'EventKind', description: 'A kind of platform event (spec section 6).', example: 'article.published' })

// Plain data and zod only: the portal's forms import these too, in the browser.
export const maxWebhookUrlLength = 2_048
export const maxWebhookEvents = 50
export const minWebhookSecretLength = 16
export const maxWebhookSecretLength = 512

export const webhookUrlSchema = withoutNul(
  z
    .string({ error: 'url must be a string.' })
    .trim()
    .min(1, 'url must not be empty.')
    .max(maxWebhookUrlLength, `url must be at most ${maxWebhookUrlLength.toLocaleString('en-US')} characters.`),
)
  .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), 'url must be an absolute https URL such as https://example.com/webhooks.')
  .meta({
    description: 'Receiver address; deliveries are POSTed to it. Must be https and reach a public address.',
    example: 'https://hooks.example.com/newsroom',
  })

export const webhookEventsSchema = z
  .array(eventKindSchema)
  .min(1, 'events must list at least one event kind.')
  .max(maxWebhookEvents, `events must list at most ${maxWebhookEvents} kinds.`)
  .transform((kinds) => [...new Set(kinds)])
  .meta({ description: 'The event kinds to deliver; duplicates are removed.', example: ['article.published', 'article.unpublished'] })

export const webhookSecretSchema = z
  .string({ error: 'secret must be a string.' })
  .min(minWebhookSecretLength, `secret must have ${minWebhookSecretLength} to ${maxWebhookSecretLength} characters.`)
  .max(maxWebhookSecretLength, `secret must have ${minWebhookSecretLength} to ${maxWebhookSecretLength} characters.`)
  .meta({
    description: `Signing secret you choose, ${minWebhookSecretLength} to ${maxWebhookSecretLength} characters. Each delivery carries X-Service-Signature, the hex HMAC-SHA256 of the body keyed with it, and the Standard Webhooks webhook-signature keyed with its UTF-8 bytes. Avoid a whsec_ prefix: Standard Webhooks libraries would read the rest as base64. Never returned.`,
    example: 'nr-3f8a1c9e27d44b6f9a0c',
  })

export const maxWebhookFilterValues = 50

const filterNote = 'Narrows the article events (`article.*`, `workflow.transitioned`) among `events`; events about no article (`user.*`) are not narrowed. Empty (the default): no narrowing.'

export const webhookDepartmentIdsSchema = z
  .array(withoutNul(z.string().min(1, 'Each department id must be one of the newsroom\'s departments.').max(64)))
  .max(maxWebhookFilterValues, `department_ids must list at most ${maxWebhookFilterValues} departments.`)
  .transform((ids) => [...new Set(ids)])
  .meta({ description: `Only events about articles in one of these departments (ids of the newsroom's departments). ${filterNote}`, example: ['dep_0mhx2k1s9q3v8w4t6y1z2a3b4c'] })

export const webhookTagsSchema = z
  .array(withoutNul(z.string().trim().min(1, 'Each tag must have 1 to 64 characters.').max(64, 'Each tag must have 1 to 64 characters.')))
  .max(maxWebhookFilterValues, `tags must list at most ${maxWebhookFilterValues} tags.`)
  .transform((tags) => tags.filter((tag, index) => tags.findIndex((other) => other.toLowerCase() === tag.toLowerCase()) === index))
  .meta({ description: `Only events about articles carrying any of these tags, in any spelling ("Local" matches "local"). ${filterNote}`, example: ['election'] })

export const webhookStatusesSchema = z
  .array(z.enum(apiStatuses, { error: (issue) => `Unknown status '${String(issue.input)}'. Allowed: ${apiStatuses.join(', ')}.` }))
  .max(apiStatuses.length)
  .transform((statuses) => [...new Set(statuses)])
  .meta({ description: `Only events whose article's status after the change is one of these (for \`workflow.transitioned\`: its \`to_state\`). ${filterNote}`, example: ['published'] })

const filterFields = { department_ids: webhookDepartmentIdsSchema.optional(), tags: webhookTagsSchema.optional(), statuses: webhookStatusesSchema.optional() }

export const createWebhookSchema = z
  .strictObject({ url: webhookUrlSchema, events: webhookEventsSchema, secret: webhookSecretSchema, ...filterFields })
  .meta({ id: 'CreateWebhook', description: 'A new webhook subscription. Unknown fields are rejected.' })

export type CreateWebhookInput = z.infer<typeof createWebhookSchema>

export const updateWebhookSchema = z
  .strictObject({
    url: webhookUrlSchema.optional(),
    events: webhookEventsSchema.optional(),
    secret: webhookSecretSchema.optional().meta({ description: 'A new signing secret; deliveries from now on are signed with it.' }),
    ...filterFields,
    status: z
      .enum(['enabled', 'paused'], { error: 'status can be enabled (to resume or re-enable) or paused; delete a subscription to stop it for good.' })
      .optional()
      .meta({
        description:
          'paused holds deliveries until the subscription is enabled again; they then go out (within a minute). enabled resumes a paused subscription or re-enables one the service disabled; deliveries that failed while disabled are not re-sent.',
      }),
  })
  .meta({ id: 'UpdateWebhook', description: 'The fields to change; the others keep their values.' })

export type UpdateWebhookInput = z.infer<typeof updateWebhookSchema>

/** The most subscriptions (or deliveries) one page holds; a newsroom may not have more subscriptions than that. */
export const maxWebhookPageSize = 200

const pageQuery = {
  limit: z.coerce.number().int('limit must be a whole number.').min(1, `limit must be 1 to ${maxWebhookPageSize}.`).max(maxWebhookPageSize, `limit must be 1 to ${maxWebhookPageSize}.`).default(50),
  offset: z.coerce.number().int('offset must be a whole number.').min(0, 'offset must be 0 or more.').max(10_000_000).default(0),
  cursor: withoutNul(z.string().min(1).max(1_024))
    .optional()
    .meta({ description: "The previous page's `next_cursor`: the page after it, found by position rather than by counting (as cheap deep in the list as on page 1). Not with `offset`." }),
}

export const listWebhooksQuerySchema = z.strictObject(pageQuery).meta({ id: 'ListWebhooksQuery' })
export type ListWebhooksQuery = z.infer<typeof listWebhooksQuerySchema>

export const listDeliveriesQuerySchema = z.strictObject(pageQuery).meta({ id: 'ListDeliveriesQuery' })
export type ListDeliveriesQuery = z.infer<typeof listDeliveriesQuerySchema>

export const webhookStatusSchema = z
  .enum(['enabled', 'disabled', 'paused'])
  .meta({ id: 'WebhookStatus', description: 'enabled; paused by an admin (deliveries wait and go out on resume); disabled by the service (deliveries stop).' })

export const webhookSchema = z
  .object({
    webhook_id: z.string().meta({ example: webhookIdExample }),
    url: z.string(),
    events: z.array(eventKindSchema),
    department_ids: z.array(z.string()).meta({ description: 'Only article events about articles in these departments; empty: any.' }),
    tags: z.array(z.string()).meta({ description: 'Only article events about articles carrying any of these tags (any spelling); empty: any.' }),
    statuses: z.array(z.enum(apiStatuses)).meta({ description: "Only article events whose article's status after the change is one of these; empty: any." }),
    status: webhookStatusSchema,
    created_at: timestamp,
    updated_at: timestamp,
    disabled_at: timestamp.nullable(),
    disabled_reason: z
      .string()
      .nullable()
      .meta({ description: 'delivery_failures when the service disabled it after seven failed attempts of one delivery; receiver_gone when the receiver answered 410 Gone.' }),
    previous_secret_expires_at: timestamp
      .nullable()
      .meta({ description: 'After a secret rotation: until when the previous secret still signs deliveries beside the new one. null when only one secret signs.' }),
  })
  .meta({
    id: 'Webhook',
    description: 'A webhook subscription. The signing secret is never returned.',
    example: {
      webhook_id: webhookIdExample,
      url: 'https://hooks.example.com/newsroom',
      events: ['article.published'],
      department_ids: [],
      tags: [],
      statuses: [],
      status: 'enabled',
      created_at: '2026-11-20T08:00:00.000Z',
      updated_at: '2026-11-20T08:00:00.000Z',
      disabled_at: null,
      disabled_reason: null,
      previous_secret_expires_at: null,
    },
  })

export type WebhookRecord = z.infer<typeof webhookSchema>

export const webhookListSchema = z
  .object({
    items: z.array(webhookSchema),
    total: z.number().int().min(0),
    limit: z.number().int(),
    offset: z.number().int(),
    next_offset: z.number().int().nullable().meta({ description: 'Offset of the next page, or null on the last page.' }),
    next_cursor: z.string().nullable().meta({ description: 'Send it as `cursor` (with the same filters) for the next page; null on the last page.' }),
  })
  .meta({ id: 'WebhookList' })

export const deliveryAttemptSchema = z
  .object({
    attempt: z.number().int().min(1),
    at: timestamp,
    response_status: z.number().int().nullable().meta({ description: "The receiver's HTTP status, or null when no response arrived." }),
    duration_ms: z.number().int(),
    error: z.string().nullable().meta({ description: 'Why the attempt failed (time-out, network or TLS error, non-2xx), worded for a person, or null.' }),
    request: z
      .object({ headers: z.record(z.string(), z.string()), body: z.string() })
      .nullable()
      .meta({ description: 'The headers and body that were sent (null for attempts recorded before this was kept).' }),
    response: z
      .object({
        headers: z.record(z.string(), z.string()),
        body: z.string().meta({ description: 'The first 4 KB of the response body.' }),
        body_truncated: z.boolean().meta({ description: 'True when the body was longer than 4 KB.' }),
      })
      .nullable()
      .meta({ description: "The receiver's answer, or null when none arrived." }),
  })
  .meta({ id: 'DeliveryAttempt' })

export const deliveryStatusSchema = z.enum(['pending', 'succeeded', 'failed']).meta({ id: 'DeliveryStatus' })

export const deliverySchema = z
  .object({
    delivery_id: z.string().meta({ example: 'dlv_0mhx2k1s9q3v8w4t6y1z2a3b4c' }),
    event_id: z.string().meta({
      description: 'The event delivered: `GET /v1/events/{event_id}` answers it (scope `events:read`), the same envelope as the body that was sent. Test events are not listed there.',
      example: 'evt_0mhx2k1s9q3v8w4t6y1z2a3b4c',
    }),
    event: z.string().meta({ description: 'The event kind (webhook.test for test events).', example: 'article.published' }),
    status: deliveryStatusSchema,
    attempts: z.array(deliveryAttemptSchema),
    next_attempt_at: timestamp.nullable().meta({ description: 'When the next automatic retry is due, or null.' }),
    created_at: timestamp.meta({ description: 'When the delivery was created: when the event reached this subscription.' }),
  })
  .meta({ id: 'Delivery' })

export type DeliveryRecord = z.infer<typeof deliverySchema>

export const deliveryListSchema = z
  .object({
    items: z.array(deliverySchema),
    total: z.number().int().min(0),
    limit: z.number().int(),
    offset: z.number().int(),
    next_offset: z.number().int().nullable(),
    next_cursor: z.string().nullable().meta({ description: 'Send it as `cursor` (with the same filters) for the next page; null on the last page.' }),
  })
  .meta({ id: 'DeliveryList' })

export const rotatedSecretSchema = z
  .object({
    webhook: webhookSchema,
    secret: z.string().meta({ description: 'The new signing secret, generated by the service. Shown only here, once: store it now.', example: 'q7Vh3mK9xR2pL8wN4tY6bC1dF5gJ0sA3eZ7uI9oP2kM' }),
    standard_webhooks_secret: z.string().meta({
      description: 'The same secret in the form Standard Webhooks libraries take: `whsec_` + base64 of its UTF-8 bytes.',
      example: 'whsec_cTdWaDNtSzl4UjJwTDh3TjR0WTZiQzFkRjVnSjBzQTNlWjd1STlvUDJrTQ==',
    }),
  })
  .meta({ id: 'RotatedWebhookSecret' })

export type RotatedSecretRecord = z.infer<typeof rotatedSecretSchema>

export const deliveryPathSchema = z.object({
  webhook_id: webhookIdSchema,
  delivery_id: withoutNul(z.string().min(1).max(200)).meta({ description: 'The delivery id.', example: 'dlv_0mhx2k1s9q3v8w4t6y1z2a3b4c' }),
})

export const manualDeliverySchema = z
  .object({
    delivery_id: z.string().meta({ example: 'dlv_0mhx2k1s9q3v8w4t6y1z2a3b4c' }),
    event_id: z.string().meta({ example: 'evt_0mhx2k1s9q3v8w4t6y1z2a3b4c' }),
    result: z.enum(['succeeded', 'failed']).meta({ description: 'succeeded when the receiver answered 2xx.' }),
    attempt: z.number().int().nullable().meta({ description: 'The number this attempt got in the delivery\'s log.' }),
    response_status: z.number().int().nullable(),
    duration_ms: z.number().int(),
    error: z.string().nullable().meta({ description: 'Why the attempt failed, worded for a person, or null.' }),
  })
  .meta({ id: 'ManualDelivery', description: 'The one attempt a test event or a redelivery made, at once.' })

export type ManualDeliveryRecord = z.infer<typeof manualDeliverySchema>

export const subscriptionFilterSchema = z
  .object({
    events: z.array(eventKindSchema),
    department_ids: z.array(z.string()),
    tags: z.array(z.string()),
    statuses: z.array(z.enum(apiStatuses)),
    summary: z.string().meta({ description: 'Which events pass, in words.', example: 'article.published events about articles in Sport, whose status after the change is published.' }),
  })
  .meta({ id: 'SubscriptionFilter', description: "The subscription's kinds and filters: what a real event must be to be delivered." })

export const testDeliverySchema = manualDeliverySchema
  .extend({ filter: subscriptionFilterSchema.meta({ description: 'The filter real events pass through to reach this subscription; the test event itself bypasses it and carries it in its data.' }) })
  .meta({ id: 'TestDelivery', description: 'The one attempt a test event made, at once, and the filter real events would have to pass.' })

export type TestDeliveryRecord = z.infer<typeof testDeliverySchema>

/** POST /v1/webhooks/{id}/test's optional body: which kind to send (webhook.test when absent). */
export const testEventBodySchema = z
  .object({
    event: withoutNul(z.string().min(1).max(64))
      .optional()
      .meta({
        description:
          'A kind the subscription listens to: sends a sample of it (the shape that kind carries, with example values and `"test": true` in its data) instead of `webhook.test`. Kinds nothing sends yet (billing) are refused.',
        example: 'article.published',
      }),
  })
  .meta({ id: 'TestEventRequest' })
