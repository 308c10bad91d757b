import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { db } from '../../lib/db/client.ts'
import { recordEvents } from '../../lib/events/record-event.ts'
import { tenantDb } from '../../lib/tenancy/tenant-db.ts'
import { createDeliveriesForEvent } from '../../lib/webhooks/create-deliveries.ts'
import { standardWebhooksSecret } from '../../lib/webhooks/sign-payload.ts'
import { apiClient } from '../support/api-client.ts'
import { rawHttp } from '../support/raw-http.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { stubEnv } from '../support/stub-env.ts'
import { startWebhookReceiver, stringHeaders } from '../support/webhook-receiver.ts'

// POST /v1/webhooks/{id}/test and .../deliveries/{delivery_id}/redeliver over real HTTP,
// delivering to a real receiver on 127.0.0.1 (private addresses allowed for this file).

const secret = 'manual-api-secret-0123456789'
let server: Awaited<ReturnType<typeof startApiServer>>
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>
let newsroom: TestTenant
let other: TestTenant
let client: ReturnType<typeof apiClient>

beforeAll(async () => {
  stubEnv({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_SECRET_KEY: 'manual-api-key' })
  server = await startApiServer()
  receiver = await startWebhookReceiver({ status: 204 })
  newsroom = await createTestTenant()
  other = await createTestTenant()
  client = apiClient(server.url, await newsroom.token(['webhooks:manage']))
})

afterAll(async () => {
  await receiver.close()
  await server.close()
  vi.unstubAllEnvs()
})

beforeEach(() => receiver.reset())

async function subscribe(url = receiver.url) {
  return (await client.post('/v1/webhooks', { url, events: ['article.published'], secret })).body as { webhook_id: string }
}

describe('POST /v1/webhooks/{webhook_id}/test', () => {
  it('sends a signed webhook.test at once and answers with what the receiver did', async () => {
    const { webhook_id } = await subscribe()
    const answer = await client.post(`/v1/webhooks/${webhook_id}/test`)
    expect(answer.status).toBe(200)
    expect(answer.body).toEqual({ delivery_id: expect.stringMatching(/^dlv_/), event_id: expect.stringMatching(/^evt_/), result: 'succeeded', attempt: 1, response_status: 204, duration_ms: expect.any(Number), error: null, filter: expect.objectContaining({ summary: expect.any(String) }) })
    expect(receiver.requests).toHaveLength(1)
    const [request] = receiver.requests
    expect(new Webhook(standardWebhooksSecret(secret)).verify(request!.body, stringHeaders(request!.headers))).toMatchObject({ event: 'webhook.test' })
    const log = await client.get(`/v1/webhooks/${webhook_id}/deliveries`)
    expect(log.body.items[0]).toMatchObject({ delivery_id: answer.body.delivery_id, event: 'webhook.test', status: 'succeeded' })
  })

  it('takes a POST with no body and no Content-Type, as `curl -X POST` sends it, and still refuses a typeless body that is not empty', async () => {
    const { webhook_id } = await subscribe()
    const token = await newsroom.token(['webhooks:manage'])
    const port = Number(new URL(server.url).port)
    const head = `POST /v1/webhooks/${webhook_id}/test HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n`
    const bare = await rawHttp(port, `${head}\r\n`, { timeoutMs: 15_000 })
    expect(bare.status).toBe(200)
    expect(JSON.parse(bare.body)).toMatchObject({ result: 'succeeded', response_status: 204 })
    const typeless = await rawHttp(port, `${head}Content-Length: 13\r\n\r\nevent=article`, { timeoutMs: 15_000 })
    expect(typeless.status).toBe(415)
    expect(JSON.parse(typeless.body)).toMatchObject({ code: 'unsupported_media_type' })
  })

  it('sends a sample of a subscribed kind when asked, marked as a test and absent from the events API', async () => {
    const { webhook_id } = await subscribe()
    const answer = await client.post(`/v1/webhooks/${webhook_id}/test`, { event: 'article.published' })
    expect(answer.status).toBe(200)
    expect(answer.body).toMatchObject({ result: 'succeeded', response_status: 204 })
    const [request] = receiver.requests
    const delivered = new Webhook(standardWebhooksSecret(secret)).verify(request!.body, stringHeaders(request!.headers)) as { event: string; data: Record<string, unknown> }
    expect(delivered.event).toBe('article.published')
    // The shape an article.published carries (the article record), with example values, and test: true.
    expect(delivered.data).toMatchObject({ test: true, article_id: expect.stringMatching(/^art_/), headline: expect.any(String), status: 'published', version: expect.any(Number) })
    expect(request!.headers['x-service-event']).toBe('article.published')
    const log = await client.get(`/v1/webhooks/${webhook_id}/deliveries`)
    expect(log.body.items[0]).toMatchObject({ delivery_id: answer.body.delivery_id, event: 'article.published', status: 'succeeded' })

    const events = apiClient(server.url, await newsroom.token(['events:read']))
    expect((await events.get('/v1/events?type=article.published')).body.items).toEqual([])
    expect((await events.get(`/v1/events/${answer.body.event_id}`)).status).toBe(404)
  })

  it('refuses a kind the subscription does not listen to, or one nothing sends, with a 422 naming the kinds', async () => {
    const { webhook_id } = await subscribe()
    const unsubscribed = await client.post(`/v1/webhooks/${webhook_id}/test`, { event: 'user.created' })
    expect(unsubscribed.status).toBe(422)
    expect(unsubscribed.body.errors).toEqual([{ field: 'event', message: 'This subscription does not listen to user.created; choose one of: article.published.' }])
    // Billing events are the kinds nothing sends yet (the media library now sends media.*).
    const billing = (await client.post('/v1/webhooks', { url: receiver.url, events: ['subscription.updated'], secret })).body as { webhook_id: string }
    const never = await client.post(`/v1/webhooks/${billing.webhook_id}/test`, { event: 'subscription.updated' })
    expect(never.status).toBe(422)
    expect(never.body.errors[0].message).toMatch(/Nothing in this service sends subscription.updated yet/)
    expect((await client.post(`/v1/webhooks/${webhook_id}/test`, { event: 'nonsense' })).status).toBe(422)
    expect(receiver.requests).toHaveLength(0)
  })

  it('reports a receiver that is not listening in words, still as 200', async () => {
    const { webhook_id } = await subscribe('http://127.0.0.1:9/hook')
    const answer = await client.post(`/v1/webhooks/${webhook_id}/test`)
    expect(answer.status).toBe(200)
    expect(answer.body).toMatchObject({ result: 'failed', response_status: null, error: 'Connection refused by 127.0.0.1:9.' })
  })
})

describe('the deliveries log', () => {
  it('shows each attempt\'s request headers and body, and the response status, headers and first 4 KB of body', async () => {
    const { webhook_id } = await subscribe()
    const longAnswer = `${'é'.repeat(100)}${'x'.repeat(9_000)}`
    receiver.answer({ status: 422, headers: { 'Content-Type': 'text/plain; charset=utf-8', 'X-Receiver-Trace': 'tr-42' }, body: longAnswer })
    await client.post(`/v1/webhooks/${webhook_id}/test`)
    const refused = await subscribe('http://127.0.0.1:9/down')
    await client.post(`/v1/webhooks/${refused.webhook_id}/test`)

    const [delivery] = (await client.get(`/v1/webhooks/${webhook_id}/deliveries`)).body.items
    const [attempt] = delivery.attempts
    const [sent] = receiver.requests
    expect(attempt.request.body).toBe(sent!.body)
    expect(attempt.request.headers).toMatchObject({
      'Content-Type': 'application/json',
      'webhook-id': delivery.delivery_id,
      'webhook-timestamp': sent!.headers['webhook-timestamp'],
      'webhook-signature': sent!.headers['webhook-signature'],
      'X-Service-Signature': sent!.headers['x-service-signature'],
      'Content-Length': String(Buffer.byteLength(sent!.body)),
    })
    expect(attempt.response_status).toBe(422)
    expect(attempt.response.headers).toMatchObject({ 'content-type': 'text/plain; charset=utf-8', 'x-receiver-trace': 'tr-42' })
    expect(Buffer.byteLength(attempt.response.body)).toBe(4 * 1024)
    expect(attempt.response.body.startsWith('é'.repeat(100))).toBe(true)
    expect(attempt.response.body_truncated).toBe(true)

    const [failed] = (await client.get(`/v1/webhooks/${refused.webhook_id}/deliveries`)).body.items
    expect(failed.attempts[0]).toMatchObject({ response_status: null, response: null, error: 'Connection refused by 127.0.0.1:9.' })
    expect(failed.attempts[0].request.headers['webhook-id']).toBe(failed.delivery_id)
  })
})

describe('POST /v1/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver', () => {
  it('makes one more attempt of the delivery with the same webhook-id, numbered after the earlier ones', async () => {
    const { webhook_id } = await subscribe()
    const [event] = await tenantDb(newsroom.tenant.id).$transaction((tx) => recordEvents(tx, newsroom.tenant.id, [{ kind: 'article.published', data: { article_id: 'art_redeliver' } }]))
    // Earlier tests' subscriptions get the event too; this test follows its own.
    const planned = (await createDeliveriesForEvent(event!.id)).find((delivery) => delivery.subscriptionId === webhook_id)
    const deliveryId = planned!.deliveryId

    receiver.answer({ status: 500 })
    const first = await client.post(`/v1/webhooks/${webhook_id}/deliveries/${deliveryId}/redeliver`)
    expect(first.body).toMatchObject({ delivery_id: deliveryId, event_id: event!.id, result: 'failed', attempt: 1, response_status: 500 })
    const second = await client.post(`/v1/webhooks/${webhook_id}/deliveries/${deliveryId}/redeliver`)
    expect(second.body).toMatchObject({ result: 'succeeded', attempt: 2, response_status: 204 })
    expect(receiver.requests.map((request) => request.headers['webhook-id'])).toEqual([deliveryId, deliveryId])
    expect((await db.delivery.findUniqueOrThrow({ where: { id: deliveryId } })).status).toBe('succeeded')
  })

  it("is 404 for another subscription's delivery, another newsroom's webhook, or an unknown delivery; 403 without the scope", async () => {
    const mine = await subscribe()
    const sibling = await subscribe()
    const test = (await client.post(`/v1/webhooks/${mine.webhook_id}/test`)).body
    const theirs = (await apiClient(server.url, await other.token(['webhooks:manage'])).post('/v1/webhooks', { url: receiver.url, events: ['article.published'], secret })).body
    receiver.reset()

    for (const path of [
      `/v1/webhooks/${sibling.webhook_id}/deliveries/${test.delivery_id}/redeliver`,
      `/v1/webhooks/${mine.webhook_id}/deliveries/dlv_unknown/redeliver`,
      `/v1/webhooks/${theirs.webhook_id}/deliveries/${test.delivery_id}/redeliver`,
      `/v1/webhooks/${theirs.webhook_id}/test`,
    ]) {
      const answer = await client.post(path)
      expect(answer.status, path).toBe(404)
      expect(answer.body.code).toBe('not_found')
    }
    const readOnly = apiClient(server.url, await newsroom.token(['articles:read']))
    expect((await readOnly.post(`/v1/webhooks/${mine.webhook_id}/test`)).status).toBe(403)
    expect((await readOnly.post(`/v1/webhooks/${mine.webhook_id}/deliveries/${test.delivery_id}/redeliver`)).status).toBe(403)
    expect(receiver.requests).toHaveLength(0)
  })
})
