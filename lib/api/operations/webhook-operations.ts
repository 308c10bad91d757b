import { z } from 'zod'
import type { oas31, ZodOpenApiPathsObject } from 'zod-openapi'
import { declareOperation, operationPaths, type ProblemCase } from '../openapi/api-operation.ts'
import { articleSchema } from '../../articles/article-schemas.ts'
import { apiStatuses } from '../../articles/article-status.ts'
import { eventKindGroups } from '../../events/event-kinds.ts'
import { retrySchedule } from '../../webhooks/retry-schedule.ts'
import { deliveryTimeoutMs, webhookUserAgent } from '../../webhooks/send-webhook-request.ts'
import { signPayload, standardSignature } from '../../webhooks/sign-payload.ts'
import { validationErrors, validationProblem } from '../openapi/validation-examples.ts'
import {
  createWebhookSchema,
  deliveryPathSchema,
  deliveryListSchema,
  listDeliveriesQuerySchema,
  listWebhooksQuerySchema,
  manualDeliverySchema,
  rotatedSecretSchema,
  testDeliverySchema,
  testEventBodySchema,
  updateWebhookSchema,
  webhookListSchema,
  webhookPathSchema,
  webhookSchema,
  type DeliveryRecord,
  type WebhookRecord,
} from '../../webhooks/webhook-schemas.ts'

// The webhook operations (each declaration is what withApi serves and what the reference says),
// and the deliveries the service sends (OpenAPI's top-level `webhooks`). Shapes come from
// webhook-schemas.ts.

export const webhookTags: oas31.TagObject[] = [
  {
    name: 'Webhooks',
    description: 'Subscriptions that make the service POST signed events to your system, and the log of those deliveries.',
  },
]

// ---------------------------------------------------------------------------------------
// Examples

const webhook = webhookSchema.parse(webhookSchema.meta()?.example)

const disabledWebhook: WebhookRecord = {
  ...webhook,
  status: 'disabled',
  updated_at: '2026-11-22T09:31:00.000Z',
  disabled_at: '2026-11-22T09:31:00.000Z',
  disabled_reason: 'delivery_failures',
}

const exampleRequest = (deliveryId: string, kind: string, timestamp: number, body: string) => ({
  headers: {
    'Content-Type': 'application/json',
    'User-Agent': 'Newsroom-Webhooks/1.0',
    'X-Service-Event': kind,
    'X-Service-Delivery': deliveryId,
    'X-Service-Signature': '5f0c3c1e0d6b8a…',
    'webhook-id': deliveryId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': 'v1,K5oZfzN95Z9UVu1E…',
    'Content-Length': String(body.length),
  },
  body,
})

const publishedBody = '{"event_id":"evt_0mhx5e2g4i6k8m0o2q4s6u8w0y","event":"article.published","tenant_id":"ten_0mhx0a1b2c3d4e5f6g7h8i9j0k","occurred_at":"2026-11-20T09:30:00.000Z","data":{…}}'
const transitionedBody = '{"event_id":"evt_0mhx2k1s9q3v8w4t6y1z2a3b4c","event":"workflow.transitioned","tenant_id":"ten_0mhx0a1b2c3d4e5f6g7h8i9j0k","occurred_at":"2026-11-20T09:10:00.000Z","data":{…}}'

const deliveries: DeliveryRecord[] = [
  {
    delivery_id: 'dlv_0mhx5e2g4i6k8m0o2q4s6u8w0y',
    event_id: 'evt_0mhx5e2g4i6k8m0o2q4s6u8w0y',
    event: 'article.published',
    status: 'pending',
    attempts: [
      {
        attempt: 1,
        at: '2026-11-20T09:30:01.000Z',
        response_status: 503,
        duration_ms: 214,
        error: 'The receiver answered 503.',
        request: exampleRequest('dlv_0mhx5e2g4i6k8m0o2q4s6u8w0y', 'article.published', 1795685401, publishedBody),
        response: { headers: { 'content-type': 'text/plain', 'content-length': '19' }, body: 'down for maintenance', body_truncated: false },
      },
      {
        attempt: 2,
        at: '2026-11-20T09:31:01.000Z',
        response_status: null,
        duration_ms: 3,
        error: 'Connection refused by 203.0.113.7:443.',
        request: exampleRequest('dlv_0mhx5e2g4i6k8m0o2q4s6u8w0y', 'article.published', 1795685461, publishedBody),
        response: null,
      },
    ],
    next_attempt_at: '2026-11-20T09:36:01.000Z',
    created_at: '2026-11-20T09:30:00.000Z',
  },
  {
    delivery_id: 'dlv_0mhx2k1s9q3v8w4t6y1z2a3b4c',
    event_id: 'evt_0mhx2k1s9q3v8w4t6y1z2a3b4c',
    event: 'workflow.transitioned',
    status: 'succeeded',
    attempts: [
      {
        attempt: 1,
        at: '2026-11-20T09:10:00.000Z',
        response_status: 200,
        duration_ms: 87,
        error: null,
        request: exampleRequest('dlv_0mhx2k1s9q3v8w4t6y1z2a3b4c', 'workflow.transitioned', 1795684200, transitionedBody),
        response: { headers: { 'content-type': 'application/json' }, body: '{"ok":true}', body_truncated: false },
      },
    ],
    next_attempt_at: null,
    created_at: '2026-11-20T09:30:00.000Z',
  },
]

const notFound: ProblemCase = {
  code: 'not_found',
  when: "No subscription with this id in the token's newsroom (another newsroom's included).",
  detail: `No webhook with id '${webhook.webhook_id}' exists in this newsroom.`,
}

const webhookPathParams = z.object({
  webhook_id: z.string().meta({ description: 'The subscription\'s identifier (`whk_…`).', example: webhook.webhook_id }),
})

const pageQuery = (schema: typeof listWebhooksQuerySchema) =>
  schema.extend({
    limit: schema.shape.limit.meta({ description: 'Page size, 1 to 200.' }),
    offset: schema.shape.offset.meta({ description: "How many to skip; use the previous page's `next_offset`." }),
  })

const eventKindList = Object.entries(eventKindGroups)
  .map(([group, kinds]) => `- ${group}: ${kinds.map((kind) => `\`${kind}\``).join(', ')}`)
  .join('\n')

const retryWaits = retrySchedule.map((step) => step.duration.replace(/m$/, ' min').replace(/h$/, ' h')).join(', ')

const pagingRules =
  '**Paging:** `limit` 1 to 200 (default 50) and `offset` 0 or more (default 0); out of range is a 422. `next_offset` is `null` on the last page. Every page also has `next_cursor`: send it back as `cursor` (same filters, no `offset`) for the next page, found by position rather than by counting, so a deep page costs what the first does; null on the last page.'

// ---------------------------------------------------------------------------------------

export const createWebhookOperation = declareOperation({
  method: 'POST',
  path: '/v1/webhooks',
  body: createWebhookSchema,
  operationId: 'createWebhook',
  summary: 'Create a webhook subscription',
  tags: ['Webhooks'],
  scope: 'webhooks:manage',
  description: [
    'Subscribes `url` to the event kinds in `events`. From now on each such event is POSTed to `url`, signed with `secret` (see **Event deliveries**).',
    '',
    '- `url` must be `https` and reach a public address: private, loopback and link-local addresses are refused, also when a host name resolves to one. ' +
      '(An operator may allow `http` and private addresses on a development installation.)',
    '- `events`: at least one kind; duplicates are removed. The kinds are:',
    '',
    eventKindList,
    '',
    '- `secret`: 16 to 512 characters of your choosing. It is stored encrypted and **never returned**; keep your own copy to verify signatures.',
    '',
    '**Filters** (optional) narrow the article events among `events`, applied when an event fans out: an event outside them makes no delivery. Each is a list, any of its values matches; several filters all apply; empty means no narrowing.',
    '',
    "- `department_ids`: the article's department is one of these (the newsroom's departments; another id is a 422).",
    '- `tags`: the article carries any of these tags, in any spelling.',
    "- `statuses`: the article's status after the change (for `workflow.transitioned`, its `to_state`).",
    '',
    "They apply to events about an article: the `article.*` kinds (checked against the article in the event's data) and `workflow.transitioned` (its `to_state`, and the article's department and tags when it fans out). " +
      'Events about no article (`user.*`) are delivered by `events` alone, whatever the filters. A filter changed by PATCH applies to events from then on; deliveries already made, pending retries included, go on.',
    '',
    "The subscription's owner is the token's owner, who is emailed if the subscription is disabled after repeated delivery failures.",
    '',
    'A newsroom has at most 50 subscriptions (the operator may set another limit); past it, creating one is a 409 `webhook_limit_reached`. One endpoint can receive every event kind.',
  ].join('\n'),
  requestBody: {
    examples: {
      subscribe: {
        summary: 'Publication events to one receiver',
        value: { url: 'https://hooks.example.com/newsroom', events: ['article.published', 'article.unpublished'], secret: 'nr-3f8a1c9e27d44b6f9a0c' },
      },
      sport: {
        summary: "Only the Sport desk's publications tagged election or vote",
        value: { url: 'https://hooks.example.com/sport', events: ['article.published'], secret: 'nr-3f8a1c9e27d44b6f9a0c', department_ids: ['dep_0mhx2k1s9q3v8w4t6y1z2a3b4d'], tags: ['election', 'vote'] },
      },
    },
  },
  success: {
    status: 201,
    description: 'The subscription was created; it is `enabled`.',
    schema: webhookSchema,
    headers: ['Location'],
    examples: { created: { summary: 'A new subscription (the secret is not returned)', value: { ...webhook, events: ['article.published', 'article.unpublished'] } } },
  },
  problems: [
    validationProblem(
      'A field is missing, invalid or unknown, an event kind does not exist, or `url` is not https or points to a private address.',
      validationErrors(createWebhookSchema, { url: 'https://hooks.example.com/newsroom', events: [], secret: 'short' }),
      'invalid_fields',
    ),
    validationProblem(
      'A field is missing, invalid or unknown, an event kind does not exist, or `url` is not https or points to a private address.',
      [{ field: 'url', message: 'url points to a private, loopback or link-local address (10.0.0.5), which webhooks cannot reach.' }],
      'private_address',
    ),
    {
      code: 'webhook_limit_reached',
      when: 'The newsroom already has as many subscriptions as it may: 50, unless the operator set another limit.',
      detail: 'This newsroom has 50 webhook subscriptions, the most it may have (50). Delete one it no longer needs, or add event kinds to an existing one.',
      extra: { limit: 50 },
    },
  ],
})

export const listWebhooksOperation = declareOperation({
  method: 'GET',
  path: '/v1/webhooks',
  query: listWebhooksQuerySchema,
  operationId: 'listWebhooks',
  summary: 'List webhook subscriptions',
  tags: ['Webhooks'],
  scope: 'webhooks:manage',
  description: ["The newsroom's subscriptions, newest first (by `created_at`, then `webhook_id`).", '', pagingRules].join('\n'),
  requestParams: { query: pageQuery(listWebhooksQuerySchema) },
  success: {
    status: 200,
    description: 'A page of subscriptions.',
    schema: webhookListSchema,
    examples: { page: { summary: 'Two subscriptions, one disabled', value: { items: [webhook, { ...disabledWebhook, webhook_id: 'whk_0mhx1a2b3c4d5e6f7g8h9i0j1k' }], total: 2, limit: 50, offset: 0, next_offset: null, next_cursor: null } } },
  },
  problems: [
    {
      code: 'validation_failed',
      when: 'A parameter is out of range, malformed or unknown.',
      detail: 'The request query parameters has invalid fields; see errors.',
      errors: validationErrors(listWebhooksQuerySchema, { limit: '0' }),
    },
  ],
})

export const getWebhookOperation = declareOperation({
  method: 'GET',
  path: '/v1/webhooks/{webhook_id}',
  params: webhookPathSchema,
  operationId: 'getWebhook',
  summary: 'Get a webhook subscription',
  tags: ['Webhooks'],
  scope: 'webhooks:manage',
  description: 'One subscription, with its status: `disabled` (and why, and since when) after repeated delivery failures.',
  requestParams: { path: webhookPathParams },
  success: {
    status: 200,
    description: 'The subscription.',
    schema: webhookSchema,
    examples: { enabled: { summary: 'An enabled subscription', value: webhook }, disabled: { summary: 'Disabled after delivery failures', value: disabledWebhook } },
  },
  problems: [notFound],
})

export const updateWebhookOperation = declareOperation({
  method: 'PATCH',
  path: '/v1/webhooks/{webhook_id}',
  params: webhookPathSchema,
  body: updateWebhookSchema,
  operationId: 'updateWebhook',
  summary: 'Update, pause, resume or re-enable a webhook subscription',
  tags: ['Webhooks'],
  scope: 'webhooks:manage',
  description: [
    'Changes the fields sent and keeps the others; the rules are those of creation. A new `url` is checked again.',
    '',
    '- New `department_ids`, `tags` or `statuses` apply to events from now on; deliveries already made (pending retries too) go on. Send `[]` to remove a filter.',
    '',
    '- A new `secret` signs every delivery from now on, retries of earlier events included.',
    '- `status: "enabled"` re-enables a subscription the service disabled after repeated delivery failures (or a `410 Gone`); it clears `disabled_at` and `disabled_reason`. ' +
      'Deliveries that failed while it was disabled are not re-sent.',
    '- `status: "paused"` pauses an enabled subscription: events still make deliveries, but they wait (`pending`). `status: "enabled"` resumes it, and the waiting deliveries go out within a minute. ' +
      'A disabled subscription cannot be paused (409 `webhook_disabled`): re-enable it first. Delete a subscription to stop it for good.',
  ].join('\n'),
  requestParams: { path: webhookPathParams },
  requestBody: {
    examples: {
      events: { summary: 'Change the event kinds', value: { events: ['article.published', 'article.unpublished', 'article.archived'] } },
      filter: { summary: 'Narrow to published articles of one department (an empty list removes a filter)', value: { department_ids: ['dep_0mhx2k1s9q3v8w4t6y1z2a3b4d'], statuses: ['published'], tags: [] } },
      rotate: { summary: 'Rotate the signing secret', value: { secret: 'nr-9b2e7d41c0a84f3e8d5a' } },
      reenable: { summary: 'Re-enable after fixing the receiver, or resume after a pause', value: { status: 'enabled' } },
      pause: { summary: 'Pause: deliveries wait until resumed', value: { status: 'paused' } },
    },
  },
  success: {
    status: 200,
    description: 'The updated subscription.',
    schema: webhookSchema,
    examples: { reenabled: { summary: 'Re-enabled', value: { ...webhook, updated_at: '2026-11-23T08:00:00.000Z' } } },
  },
  problems: [
    notFound,
    validationProblem('A field is invalid or unknown, or `status` is not `enabled` or `paused`.', validationErrors(updateWebhookSchema, { status: 'disabled' })),
    {
      code: 'webhook_disabled',
      when: '`status: "paused"` on a subscription the service disabled.',
      detail: 'This subscription was disabled by the service after delivery failures; re-enable it with status "enabled" before pausing it.',
    },
  ],
})

export const deleteWebhookOperation = declareOperation({
  method: 'DELETE',
  path: '/v1/webhooks/{webhook_id}',
  params: webhookPathSchema,
  operationId: 'deleteWebhook',
  summary: 'Delete a webhook subscription',
  tags: ['Webhooks'],
  scope: 'webhooks:manage',
  description: 'Deletes the subscription and its delivery log. Nothing more is sent to it; pending retries stop.',
  requestParams: { path: webhookPathParams },
  success: { status: 204, description: 'Deleted; no body.' },
  problems: [notFound],
})

export const rotateSecretOperation = declareOperation({
  method: 'POST',
  path: '/v1/webhooks/{webhook_id}/rotate-secret',
  params: webhookPathSchema,
  operationId: 'rotateWebhookSecret',
  summary: 'Rotate the signing secret, with 24 h overlap',
  tags: ['Webhooks'],
  scope: 'webhooks:manage',
  description: [
    'Replaces the signing secret with one the service generates (32 random bytes, base64url) and returns it **once**, in this answer; no body is needed. ' +
      'Generated rather than chosen, as Stripe\'s "roll secret" does, so every rotated secret has full strength and none is copied from another system.',
    '',
    '- For the next **24 hours** the previous secret keeps signing too: `webhook-signature` carries both signatures, space-separated (the new secret\'s first), ' +
      'so a receiver holding either secret accepts the delivery. `previous_secret_expires_at` says when the overlap ends. `X-Service-Signature` uses only the new secret at once.',
    '- Rotating again during an overlap ends the older secret at once: only the two newest secrets ever sign.',
    '- To set a secret of your choosing with no overlap, PATCH the subscription with `secret`.',
  ].join('\n'),
  requestParams: { path: webhookPathParams },
  success: {
    status: 200,
    description: 'The new secret (shown only here) and the subscription.',
    schema: rotatedSecretSchema,
    examples: {
      rotated: {
        summary: 'Rotated; the previous secret signs until the next day',
        value: {
          webhook: { ...webhook, updated_at: '2026-11-22T10:00:00.000Z', previous_secret_expires_at: '2026-11-23T10:00:00.000Z' },
          secret: 'q7Vh3mK9xR2pL8wN4tY6bC1dF5gJ0sA3eZ7uI9oP2kM',
          standard_webhooks_secret: 'whsec_cTdWaDNtSzl4UjJwTDh3TjR0WTZiQzFkRjVnSjBzQTNlWjd1STlvUDJrTQ==',
        },
      },
    },
  },
  problems: [
    notFound,
    { code: 'concurrent_update', when: 'Another rotation or secret change landed at the same moment.', detail: 'The secret was changed by another request at the same moment; rotate again if you still need a new one.' },
  ],
})

const sportFilter = {
  events: ['article.published' as const],
  department_ids: ['dep_0mhx2k1s9q3v8w4t6y1z2a3b4d'],
  tags: [],
  statuses: [],
  summary: 'article.published events about articles in Sport.',
}

const deliveryNotFound: ProblemCase = {
  code: 'not_found',
  when: 'No such subscription in this newsroom, or the delivery is not one of its deliveries.',
  detail: "No delivery with id 'dlv_0mhx2k1s9q3v8w4t6y1z2a3b4c' exists in this newsroom.",
}

export const sendTestEventOperation = declareOperation({
  method: 'POST',
  path: '/v1/webhooks/{webhook_id}/test',
  params: webhookPathSchema,
  body: testEventBodySchema,
  operationId: 'sendWebhookTestEvent',
  summary: 'Send a test event',
  tags: ['Webhooks'],
  scope: 'webhooks:manage',
  description: [
    'Sends a `webhook.test` event to the subscription **now**, once, signed and sent exactly like real deliveries, and answers with what the receiver did. No body is needed.',
    '',
    'To see what a real kind looks like at your receiver, send `{"event": "article.published"}` (any kind the subscription listens to): a **sample** of that kind is sent instead, in the shape that kind carries, with example values (never your newsroom\'s data) and `"test": true` in its `data`, so a receiver can recognise it and act on nothing. Samples are not events of the newsroom: `GET /v1/events` does not list them.',
    '',
    'It works on a paused or disabled subscription too, to check a receiver before resuming or re-enabling it. The attempt is kept in the deliveries log; it is never retried. The portal\'s **Send test event** does the same.',
    '',
    'The test event is sent whatever the subscription\'s filters; the answer\'s `filter` (also in the test event\'s `data.filter`) says which real events would pass them, in fields and in words.',
  ].join('\n'),
  requestParams: { path: webhookPathParams },
  requestBody: {
    optional: true,
    examples: {
      test: { summary: 'webhook.test (the same as no body)', value: {} },
      sample: { summary: 'A sample article.published', value: { event: 'article.published' } },
    },
  },
  success: {
    status: 200,
    description: 'The attempt was made; `result` says how it went (a failed attempt is still a 200).',
    schema: testDeliverySchema,
    examples: {
      delivered: { summary: 'The receiver answered 204', value: { delivery_id: 'dlv_0mhx6a1b2c3d4e5f6g7h8i9j0k', event_id: 'evt_0mhx6a1b2c3d4e5f6g7h8i9j0k', result: 'succeeded', attempt: 1, response_status: 204, duration_ms: 83, error: null, filter: sportFilter } },
      refused: { summary: 'Nothing listens there', value: { delivery_id: 'dlv_0mhx6a1b2c3d4e5f6g7h8i9j0k', event_id: 'evt_0mhx6a1b2c3d4e5f6g7h8i9j0k', result: 'failed', attempt: 1, response_status: null, duration_ms: 3, error: 'Connection refused by hooks.example.com:443.', filter: sportFilter } },
    },
  },
  problems: [
    notFound,
    validationProblem('`event` is not a kind the subscription listens to, or a kind nothing sends yet.', [
      { field: 'event', message: 'This subscription does not listen to user.created; choose one of: article.published, article.unpublished.' },
    ]),
  ],
})

export const redeliverOperation = declareOperation({
  method: 'POST',
  path: '/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver',
  params: deliveryPathSchema,
  operationId: 'redeliverWebhookDelivery',
  summary: 'Redeliver a delivery',
  tags: ['Webhooks'],
  scope: 'webhooks:manage',
  description:
    'One more attempt of an existing delivery, **now**, with the same `webhook-id` / `X-Service-Delivery` and body, signed afresh. It does not restart or change the automatic retries, ' +
    'and works on any delivery of the subscription, succeeded or failed. The portal\'s **Redeliver** does the same. No body is needed.',
  requestParams: { path: webhookPathParams.extend({ delivery_id: z.string().meta({ description: 'The delivery\'s identifier (`dlv_…`).', example: 'dlv_0mhx2k1s9q3v8w4t6y1z2a3b4c' }) }) },
  success: {
    status: 200,
    description: 'The attempt was made; `result` says how it went (a failed attempt is still a 200).',
    schema: manualDeliverySchema,
    examples: { redelivered: { summary: 'Delivered on the third attempt', value: { delivery_id: 'dlv_0mhx2k1s9q3v8w4t6y1z2a3b4c', event_id: 'evt_0mhx2k1s9q3v8w4t6y1z2a3b4c', result: 'succeeded', attempt: 3, response_status: 200, duration_ms: 120, error: null } } },
  },
  problems: [deliveryNotFound],
})

export const listDeliveriesOperation = declareOperation({
  method: 'GET',
  path: '/v1/webhooks/{webhook_id}/deliveries',
  params: webhookPathSchema,
  query: listDeliveriesQuerySchema,
  operationId: 'listWebhookDeliveries',
  summary: "List a subscription's deliveries",
  tags: ['Webhooks'],
  scope: 'webhooks:manage',
  description: [
    'The deliveries of events to this subscription, newest first, each with every attempt in order: when, the HTTP status your receiver answered (or `null`), how long it took, why it failed (worded for a person), ' +
      'the request headers and body that were sent, and the response headers and first 4 KB of its body.',
    '',
    '`status` is `pending` while attempts remain (`next_attempt_at` says when the next is due), `succeeded` once your receiver answered 2xx, and `failed` when every attempt failed ' +
      'or the subscription was disabled or deleted.',
    '',
    'A finished delivery stays in the log for 30 days after its event (the operator\'s `DELIVERY_LOG_RETENTION_DAYS`); a pending one stays until it finishes.',
    '',
    pagingRules,
  ].join('\n'),
  requestParams: { path: webhookPathParams, query: pageQuery(listDeliveriesQuerySchema) },
  success: {
    status: 200,
    description: 'A page of deliveries.',
    schema: deliveryListSchema,
    examples: { page: { summary: 'A delivery being retried, and one that succeeded', value: { items: deliveries, total: 2, limit: 50, offset: 0, next_offset: null, next_cursor: null } } },
  },
  problems: [notFound],
})

export const webhookPaths = operationPaths([listWebhooksOperation, createWebhookOperation, getWebhookOperation, updateWebhookOperation, deleteWebhookOperation, listDeliveriesOperation, rotateSecretOperation, sendTestEventOperation, redeliverOperation])

// ---------------------------------------------------------------------------------------
// The deliveries the service sends: documented with OpenAPI's top-level `webhooks`.

const workflowTransitionedSchema = z
  .object({
    article_id: z.string(),
    from_state: z.enum(apiStatuses),
    to_state: z.enum(apiStatuses),
    actor_id: z.string().nullable().meta({ description: 'The user who made the move; null when the service did (scheduled publication).' }),
  })
  .meta({ id: 'WorkflowTransitionedData', description: '`data` of `workflow.transitioned`.' })

export const eventEnvelopeSchema = z
  .object({
    event_id: z.string().meta({ description: 'Identifies the event; the same on every retry. Use it to ignore duplicates.', example: 'evt_0mhx2k1s9q3v8w4t6y1z2a3b4c' }),
    event: z.string().meta({ description: 'The event kind.', example: 'article.published' }),
    tenant_id: z.string().meta({ description: 'The newsroom the event belongs to.' }),
    occurred_at: z.iso.datetime({ offset: true }),
    data: z
      .union([articleSchema, workflowTransitionedSchema, z.record(z.string(), z.unknown())])
      .meta({ description: 'Depends on `event`: the Article for `article.*` kinds, WorkflowTransitionedData for `workflow.transitioned`, an object for the other kinds.' }),
  })
  .meta({ id: 'EventEnvelope', description: 'The body of every delivery.' })

const exampleSecret = 'nr-3f8a1c9e27d44b6f9a0c'
const exampleEnvelope = {
  event_id: 'evt_0mhx2k1s9q3v8w4t6y1z2a3b4c',
  event: 'article.published',
  tenant_id: 'ten_0mhx0a1b2c3d4e5f6g7h8i9j0k',
  occurred_at: '2026-11-20T09:30:00.000Z',
  data: articleSchema.parse(articleSchema.meta()?.example),
}

const exampleDeliveryId = 'dlv_0mhx2k1s9q3v8w4t6y1z2a3b4c'
const exampleTimestamp = 1_795_685_400

const deliveryHeaders = z.object({
  'X-Service-Signature': z.string().meta({
    description: "Lowercase hex HMAC-SHA256 of the exact body bytes, keyed with the subscription's secret.",
    example: signPayload(JSON.stringify(exampleEnvelope), exampleSecret),
  }),
  'X-Service-Event': z.string().meta({ description: 'The event kind, as in the body.', example: 'article.published' }),
  'X-Service-Delivery': z.string().meta({ description: 'Identifies the delivery; the same on every retry of it.', example: 'dlv_0mhx2k1s9q3v8w4t6y1z2a3b4c' }),
  'User-Agent': z.string().meta({ example: webhookUserAgent }),
  'webhook-id': z.string().meta({ description: 'Standard Webhooks: the delivery id, the same as X-Service-Delivery and on every retry.', example: exampleDeliveryId }),
  'webhook-timestamp': z.string().meta({ description: 'Standard Webhooks: when this attempt was signed, in Unix seconds. Refuse deliveries older than a few minutes to stop replays.', example: String(exampleTimestamp) }),
  'webhook-signature': z.string().meta({
    description:
      'Standard Webhooks: `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the UTF-8 bytes of your secret (give the `standardwebhooks` libraries `whsec_` + base64(secret)). ' +
      'For 24 h after a secret rotation it carries two signatures, space-separated, the new secret\'s first; accept the delivery if either matches.',
    example: standardSignature(exampleSecret, exampleDeliveryId, exampleTimestamp, JSON.stringify(exampleEnvelope)),
  }),
})

const eventDelivery = {
  operationId: 'receiveEvent',
  summary: 'Event delivery (sent by the service to your url)',
  tags: ['Webhooks'],
  description: [
    'For every event of a subscribed kind the service POSTs the envelope below to the subscription\'s `url` as `application/json`.',
    '',
    '**Verify before you process:** compute the HMAC-SHA256 of the raw body bytes (before any JSON parsing) keyed with your secret, encode it as lowercase hex, ' +
      'and compare it with `X-Service-Signature` in constant time. Equal means the delivery is genuine. ' +
      'Or verify the Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`) with a `standardwebhooks` library, which also refuses replays by timestamp.',
    '',
    `**Answer 2xx quickly.** Any other status, a redirect (redirects are not followed), a network error or no answer within ${deliveryTimeoutMs / 1000} s is a failure. ` +
      `A failed delivery is retried after ${retryWaits}. When the last retry fails too, the subscription is disabled (\`disabled_reason: "delivery_failures"\`), ` +
      'its remaining deliveries stop, and its owner is emailed; re-enable it with PATCH `status: "enabled"`. ' +
      'A `410 Gone` answer disables it the same way at once (`disabled_reason: "receiver_gone"`). A `429` or `503` with `Retry-After` makes the next retry wait at least that long (at most 24 h), without adding attempts.',
    '',
    '**Expect duplicates and disorder:** a retry repeats `X-Service-Delivery` and `event_id`, and deliveries are not ordered. Events are recorded in the same transaction as the change, ' +
      'so every delivered event describes a committed change.',
  ].join('\n'),
  requestParams: { header: deliveryHeaders },
  requestBody: {
    required: true,
    content: {
      'application/json': {
        schema: eventEnvelopeSchema,
        examples: { published: { summary: 'article.published', value: exampleEnvelope } },
      },
    },
  },
  responses: {
    '2XX': { description: 'Received. Any 2xx settles the delivery; the body is ignored.' },
    default: { description: 'Any other answer, or none within the time-out, is a failure and is retried.' },
  },
}

export const webhookDeliveries: ZodOpenApiPathsObject = { event: { post: eventDelivery } }
