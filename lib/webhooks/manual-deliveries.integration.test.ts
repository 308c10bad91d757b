import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createTestTenant, type TestTenant } from '../../tests/support/fixtures.ts'
import { db } from '../db/client.ts'
import { NotFoundError } from '../errors.ts'
import { recordEvents } from '../events/record-event.ts'
import { sweepOutbox } from '../events/sweep-outbox.ts'
import { tenantDb } from '../tenancy/tenant-db.ts'
import { createDeliveriesForEvent } from './create-deliveries.ts'
import { deliverAttempt } from './deliver-attempt.ts'
import { createWebhook } from './manage-subscriptions.ts'
import { redeliver, sendTestEvent } from './manual-deliveries.ts'
import { verifyPayloadSignature } from './sign-payload.ts'
import { stubEnv } from '../../tests/support/stub-env.ts'

// The portal's "Send test event" and "Redeliver": one attempt at once, through the same
// signing and sending path as scheduled deliveries, against a receiver on 127.0.0.1.

const secret = 'manual-delivery-secret-01'
let receiver: Server
let receiverUrl: string
let answers: number[] = []
const requests: { headers: IncomingHttpHeaders; body: string }[] = []
let newsroom: TestTenant
let other: TestTenant

beforeAll(async () => {
  stubEnv({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_SECRET_KEY: 'manual-test-key' })
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') })
      res.writeHead(answers.shift() ?? 200).end()
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`
  newsroom = await createTestTenant()
  other = await createTestTenant()
})

afterAll(async () => {
  await new Promise((resolve) => { receiver.closeAllConnections(); receiver.close(resolve) })
  vi.unstubAllEnvs()
})

describe('sendTestEvent', () => {
  it('sends a signed webhook.test event at once and keeps it in the deliveries log, even to a disabled subscription', async () => {
    const subscription = await createWebhook(newsroom.actor('admin'), { url: receiverUrl, events: ['article.published'], secret })
    await db.webhookSubscription.update({ where: { id: subscription.id }, data: { status: 'disabled', disabledAt: new Date(), disabledReason: 'delivery_failures' } })
    requests.length = 0

    const outcome = await sendTestEvent(newsroom.actor('admin'), subscription.id)
    expect(outcome).toMatchObject({ result: 'succeeded', attempt: 1, responseStatus: 200, error: null, deliveryId: expect.stringMatching(/^dlv_/), eventId: expect.stringMatching(/^evt_/) })
    expect(requests).toHaveLength(1)
    expect(requests[0]!.headers['x-service-event']).toBe('webhook.test')
    expect(requests[0]!.headers['x-service-delivery']).toBe(outcome.deliveryId)
    expect(verifyPayloadSignature(requests[0]!.body, secret, String(requests[0]!.headers['x-service-signature']))).toBe(true)
    expect(JSON.parse(requests[0]!.body)).toMatchObject({ event_id: outcome.eventId, event: 'webhook.test', tenant_id: newsroom.tenant.id, data: { webhook_id: subscription.id } })
    expect(await db.delivery.findUniqueOrThrow({ where: { id: outcome.deliveryId } })).toMatchObject({ status: 'succeeded', subscriptionId: subscription.id })
    // Never re-sent through the queue.
    expect((await db.event.findUniqueOrThrow({ where: { id: outcome.eventId } })).sentToQueueAt).toBeInstanceOf(Date)

    answers = [500]
    const failing = await sendTestEvent(newsroom.actor('admin'), subscription.id)
    expect(failing).toMatchObject({ result: 'failed', responseStatus: 500 })
    expect(await db.delivery.findUniqueOrThrow({ where: { id: failing.deliveryId } })).toMatchObject({ status: 'failed', nextAttemptAt: null })
    await expect(sendTestEvent(other.actor('admin'), subscription.id)).rejects.toBeInstanceOf(NotFoundError)
    expect(await sweepOutbox()).toMatchObject({ sent: 0 })
  })
})

describe('redeliver', () => {
  it('makes one more attempt with the same delivery id, numbered after the others, without touching the schedule', async () => {
    await createWebhook(newsroom.actor('admin'), { url: receiverUrl, events: ['article.archived'], secret })
    const [event] = await tenantDb(newsroom.tenant.id).$transaction((tx) => recordEvents(tx, newsroom.tenant.id, [{ kind: 'article.archived', data: { article_id: 'art_r' } }]))
    const [planned] = await createDeliveriesForEvent(event!.id)
    requests.length = 0
    answers = [500]
    expect(await deliverAttempt(planned!.deliveryId, { kind: 'scheduled', retryDelayMs: 60_000 })).toMatchObject({ result: 'failed', attempt: 1 })
    const waiting = await db.delivery.findUniqueOrThrow({ where: { id: planned!.deliveryId } })
    expect(waiting.status).toBe('pending')

    answers = [503]
    const failedAgain = await redeliver(newsroom.actor('admin'), planned!.deliveryId)
    expect(failedAgain).toMatchObject({ result: 'failed', attempt: 2, responseStatus: 503, deliveryId: planned!.deliveryId, eventId: event!.id })
    // Still waiting for its scheduled retry, at the same time.
    expect(await db.delivery.findUniqueOrThrow({ where: { id: planned!.deliveryId } })).toMatchObject({ status: 'pending', nextAttemptAt: waiting.nextAttemptAt })

    const succeeded = await redeliver(newsroom.actor('admin'), planned!.deliveryId)
    expect(succeeded).toMatchObject({ result: 'succeeded', attempt: 3, responseStatus: 200 })
    expect(await db.delivery.findUniqueOrThrow({ where: { id: planned!.deliveryId } })).toMatchObject({ status: 'succeeded', nextAttemptAt: null })
    expect(new Set(requests.map((request) => request.headers['x-service-delivery']))).toEqual(new Set([planned!.deliveryId]))
    // The scheduled retry that wakes up later finds nothing left to do.
    expect(await deliverAttempt(planned!.deliveryId, { kind: 'scheduled', retryDelayMs: 300_000 })).toMatchObject({ result: 'stopped' })
    expect(requests).toHaveLength(3)

    await expect(redeliver(other.actor('admin'), planned!.deliveryId)).rejects.toBeInstanceOf(NotFoundError)
  })
})
