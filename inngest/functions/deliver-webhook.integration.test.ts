import { InngestTestEngine } from '@inngest/test'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { db } from '../../lib/db/client.ts'
import { recordEvents } from '../../lib/events/record-event.ts'
import { tenantDb } from '../../lib/tenancy/tenant-db.ts'
import { createDeliveriesForEvent } from '../../lib/webhooks/create-deliveries.ts'
import { createWebhook } from '../../lib/webhooks/manage-subscriptions.ts'
import { retrySchedule } from '../../lib/webhooks/retry-schedule.ts'
import { verifyPayloadSignature } from '../../lib/webhooks/sign-payload.ts'
import { createTestTenant, type TestTenant } from '../../tests/support/fixtures.ts'
import { deliverWebhook } from './deliver-webhook.ts'
import { stubEnv } from '../../tests/support/stub-env.ts'

// The delivery schedule under @inngest/test: real steps against a real receiver on
// 127.0.0.1 and the real database; only the durable sleeps are mocked (by their ids),
// since the test engine would otherwise wait for them forever.

const secret = 'schedule-test-secret-0123'
let receiver: Server
let receiverUrl: string
let answers: number[] = []
let requests: { headers: IncomingHttpHeaders; body: string }[] = []
// Runs while the receiver holds a request: the way to change things "between attempts"
// (the mocked sleeps must stay instant, or the test engine loses track of the run).
let onRequest: ((count: number) => Promise<void>) | undefined
let newsroom: TestTenant

beforeAll(async () => {
  stubEnv({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_SECRET_KEY: 'schedule-test-key', SMTP_URL: undefined, APP_URL: undefined, NEXTAUTH_URL: undefined })
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', async () => {
      requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') })
      await onRequest?.(requests.length)
      res.writeHead(answers.shift() ?? 500).end()
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`
})

afterAll(async () => {
  await new Promise((resolve) => { receiver.closeAllConnections(); receiver.close(resolve) })
  vi.unstubAllEnvs()
})

beforeEach(() => {
  answers = []
  requests = []
  onRequest = undefined
})

/**
 * A fresh subscription and the pending delivery of a new event to it. Each test gets its
 * own newsroom, so subscriptions made by earlier tests do not receive the event too.
 */
async function pendingDelivery() {
  newsroom = await createTestTenant()
  const subscription = await createWebhook(newsroom.actor('admin'), { url: receiverUrl, events: ['article.published'], secret })
  const [event] = await tenantDb(newsroom.tenant.id).$transaction((tx) =>
    recordEvents(tx, newsroom.tenant.id, [{ kind: 'article.published', data: { article_id: 'art_schedule', headline: 'Schedule' } }]),
  )
  const planned = await createDeliveriesForEvent(event!.id)
  expect(planned.map((delivery) => delivery.subscriptionId)).toEqual([subscription.id])
  return { subscription, event: event!, deliveryId: planned[0]!.deliveryId }
}

function engineFor(delivery: { deliveryId: string; subscriptionId: string; eventId: string }) {
  return new InngestTestEngine({
    function: deliverWebhook,
    events: [
      {
        name: 'newsroom/webhook.delivery_requested',
        data: { delivery_id: delivery.deliveryId, subscription_id: delivery.subscriptionId, tenant_id: newsroom.tenant.id, event_id: delivery.eventId, kind: 'article.published' },
      },
    ],
    steps: retrySchedule.map((wait) => ({ id: wait.id, handler: () => null })),
  })
}

function sleepCalls(ctx: { step: { sleep: { mock: { calls: unknown[][] } } } }) {
  return ctx.step.sleep.mock.calls.map(([id, duration]) => [id, duration])
}

describe('deliver-webhook under @inngest/test', () => {
  it('follows the exact schedule, then disables the subscription and e-mails its owner after the seventh failure', async () => {
    const { subscription, event, deliveryId } = await pendingDelivery()
    // Another pending delivery of the same subscription, which the disabling must stop.
    const [other] = await tenantDb(newsroom.tenant.id).$transaction((tx) => recordEvents(tx, newsroom.tenant.id, [{ kind: 'article.published', data: { article_id: 'art_other' } }]))
    const [otherDelivery] = await createDeliveriesForEvent(other!.id)

    const { result, ctx } = await engineFor({ deliveryId, subscriptionId: subscription.id, eventId: event.id }).execute()

    expect(result).toEqual({ deliveryId, result: 'failed', attempts: 7, disabled: true })
    expect(sleepCalls(ctx as never)).toEqual([
      ['wait-before-retry-1', '1m'],
      ['wait-before-retry-2', '5m'],
      ['wait-before-retry-3', '30m'],
      ['wait-before-retry-4', '2h'],
      ['wait-before-retry-5', '12h'],
      ['wait-before-retry-6', '24h'],
    ])

    expect(requests).toHaveLength(7)
    for (const request of requests) {
      expect(request.headers['x-service-delivery']).toBe(deliveryId)
      expect(verifyPayloadSignature(request.body, secret, String(request.headers['x-service-signature']))).toBe(true)
    }
    const attempts = await db.deliveryAttempt.findMany({ where: { deliveryId }, orderBy: { attempt: 'asc' } })
    expect(attempts.map((attempt) => [attempt.attempt, attempt.responseStatus])).toEqual([1, 2, 3, 4, 5, 6, 7].map((n) => [n, 500]))
    expect(await db.delivery.findUniqueOrThrow({ where: { id: deliveryId } })).toMatchObject({ status: 'failed', nextAttemptAt: null })
    expect(await db.delivery.findUniqueOrThrow({ where: { id: otherDelivery!.deliveryId } })).toMatchObject({ status: 'failed', nextAttemptAt: null })

    const disabled = await db.webhookSubscription.findUniqueOrThrow({ where: { id: subscription.id } })
    expect(disabled).toMatchObject({ status: 'disabled', disabledReason: 'delivery_failures' })
    expect(disabled.disabledAt).toBeInstanceOf(Date)

    const mail = await db.mailMessage.findFirstOrThrow({ where: { tenantId: newsroom.tenant.id, text: { contains: subscription.id } } })
    expect(mail).toMatchObject({ to: newsroom.users.admin.email, transport: 'log' })
    expect(mail.subject).toContain(receiverUrl)
    expect(mail.text).toContain('7 times')
    expect(mail.text).toContain('HTTP 500')
    expect(mail.text).toContain(`PATCH http://localhost:3000/v1/webhooks/${subscription.id}`)
    expect(mail.text).toContain('{"status": "enabled"}')
    expect(mail.text).toContain('Settings → Webhooks')
  })

  it('succeeds on the third attempt against a receiver that fails twice, sleeping only before the retries it needed', async () => {
    answers = [500, 502, 200]
    const { subscription, event, deliveryId } = await pendingDelivery()
    const due: number[] = []
    onRequest = async () => {
      const nextAttemptAt = (await db.delivery.findUniqueOrThrow({ where: { id: deliveryId } })).nextAttemptAt
      if (nextAttemptAt) due.push(nextAttemptAt.getTime() - Date.now())
    }
    const { result, ctx } = await engineFor({ deliveryId, subscriptionId: subscription.id, eventId: event.id }).execute()

    expect(result).toEqual({ deliveryId, result: 'succeeded', attempts: 3 })
    expect(sleepCalls(ctx as never)).toEqual([['wait-before-retry-1', '1m'], ['wait-before-retry-2', '5m']])
    expect(requests).toHaveLength(3)
    expect(new Set(requests.map((request) => request.body)).size).toBe(1)
    const attempts = await db.deliveryAttempt.findMany({ where: { deliveryId }, orderBy: { attempt: 'asc' } })
    expect(attempts.map((attempt) => [attempt.attempt, attempt.responseStatus, attempt.error === null])).toEqual([[1, 500, false], [2, 502, false], [3, 200, true]])
    expect(await db.delivery.findUniqueOrThrow({ where: { id: deliveryId } })).toMatchObject({ status: 'succeeded', nextAttemptAt: null })
    expect((await db.webhookSubscription.findUniqueOrThrow({ where: { id: subscription.id } })).status).toBe('enabled')
    // While the second and third attempts ran, the log showed when they were due (1 and 5 minutes
    // after the failure before; the mocked sleeps make them run early).
    expect(due).toHaveLength(2)
    expect(due[0]).toBeGreaterThan(50_000)
    expect(due[0]).toBeLessThanOrEqual(60_000)
    expect(due[1]).toBeGreaterThan(290_000)
    expect(due[1]).toBeLessThanOrEqual(300_000)
  })

  it('stops, and fails the delivery, when the subscription is disabled between attempts', async () => {
    const { subscription, event, deliveryId } = await pendingDelivery()
    onRequest = async (count) => {
      if (count === 1) await db.webhookSubscription.update({ where: { id: subscription.id }, data: { status: 'disabled', disabledAt: new Date(), disabledReason: 'delivery_failures' } })
    }
    const { result, ctx } = await engineFor({ deliveryId, subscriptionId: subscription.id, eventId: event.id }).execute()

    expect(result).toEqual({ deliveryId, result: 'stopped', attempts: 2 })
    expect(sleepCalls(ctx as never)).toEqual([['wait-before-retry-1', '1m']])
    expect(requests).toHaveLength(1)
    expect(await db.delivery.findUniqueOrThrow({ where: { id: deliveryId } })).toMatchObject({ status: 'failed', nextAttemptAt: null })
    expect(await db.mailMessage.count({ where: { text: { contains: subscription.id } } })).toBe(0)
  })

  it('stops quietly when the subscription is deleted while an attempt is under way', async () => {
    const { subscription, event, deliveryId } = await pendingDelivery()
    onRequest = async () => {
      await db.webhookSubscription.delete({ where: { id: subscription.id } })
    }
    const { result } = await engineFor({ deliveryId, subscriptionId: subscription.id, eventId: event.id }).execute()
    expect(result).toEqual({ deliveryId, result: 'stopped', attempts: 2 })
    expect(requests).toHaveLength(1)
    expect(await db.delivery.count({ where: { id: deliveryId } })).toBe(0)
  })
})
