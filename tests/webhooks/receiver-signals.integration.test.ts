import { InngestTestEngine } from '@inngest/test'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { deliverWebhook } from '../../inngest/functions/deliver-webhook.ts'
import { db } from '../../lib/db/client.ts'
import { recordEvents } from '../../lib/events/record-event.ts'
import { tenantDb } from '../../lib/tenancy/tenant-db.ts'
import { createDeliveriesForEvent } from '../../lib/webhooks/create-deliveries.ts'
import { createWebhook } from '../../lib/webhooks/manage-subscriptions.ts'
import { retrySchedule } from '../../lib/webhooks/retry-schedule.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { stubEnv } from '../support/stub-env.ts'
import { startWebhookReceiver } from '../support/webhook-receiver.ts'

// What a receiver can tell us beyond "failed": 410 Gone (stop for good) and Retry-After on
// 429/503 (not before then). The deliver-webhook function runs under @inngest/test against
// a real receiver on 127.0.0.1 and the real database; only the durable sleeps are mocked,
// and the durations the function asked for are read back from them.

let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>
let newsroom: TestTenant

beforeAll(async () => {
  stubEnv({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_SECRET_KEY: 'receiver-signals-key', SMTP_URL: undefined, APP_URL: undefined, NEXTAUTH_URL: undefined })
  receiver = await startWebhookReceiver({ status: 500 })
})

afterAll(async () => {
  await receiver.close()
  vi.unstubAllEnvs()
})

beforeEach(async () => {
  receiver.reset()
  newsroom = await createTestTenant()
})

async function subscribeAndPublish(count = 1) {
  const subscription = await createWebhook(newsroom.actor('admin'), { url: receiver.url, events: ['article.published'], secret: 'receiver-signals-secret' })
  const planned = []
  for (let n = 0; n < count; n++) {
    const [event] = await tenantDb(newsroom.tenant.id).$transaction((tx) => recordEvents(tx, newsroom.tenant.id, [{ kind: 'article.published', data: { article_id: `art_${n}` } }]))
    planned.push(...(await createDeliveriesForEvent(event!.id)))
  }
  return { subscription, planned }
}

async function run(planned: { deliveryId: string; subscriptionId: string; tenantId: string; eventId: string; kind: string }) {
  const { result, ctx } = await new InngestTestEngine({
    function: deliverWebhook,
    events: [{ name: 'newsroom/webhook.delivery_requested', data: { delivery_id: planned.deliveryId, subscription_id: planned.subscriptionId, tenant_id: planned.tenantId, event_id: planned.eventId, kind: planned.kind } }],
    steps: retrySchedule.map((wait) => ({ id: wait.id, handler: () => null })),
  }).execute()
  const sleeps = (ctx as unknown as { step: { sleep: { mock: { calls: unknown[][] } } } }).step.sleep.mock.calls.map(([id, duration]) => [id, duration])
  return { result, sleeps }
}

function seconds(duration: unknown): number {
  const match = /^(\d+)s$/.exec(String(duration))
  if (!match) throw new Error(`Expected a duration in seconds, got ${String(duration)}`)
  return Number(match[1])
}

describe('410 Gone', () => {
  it('disables the subscription after the first 410, stops its other deliveries and e-mails the owner', async () => {
    const { subscription, planned } = await subscribeAndPublish(2)
    receiver.answer({ status: 410, body: 'this endpoint was retired' })

    const { result, sleeps } = await run(planned[0]!)

    expect(result).toEqual({ deliveryId: planned[0]!.deliveryId, result: 'failed', attempts: 1, disabled: true, reason: 'receiver_gone' })
    expect(sleeps).toEqual([])
    expect(receiver.requests).toHaveLength(1)
    expect(await db.webhookSubscription.findUniqueOrThrow({ where: { id: subscription.id } })).toMatchObject({ status: 'disabled', disabledReason: 'receiver_gone' })
    for (const { deliveryId } of planned) {
      expect(await db.delivery.findUniqueOrThrow({ where: { id: deliveryId } })).toMatchObject({ status: 'failed', nextAttemptAt: null })
    }
    const [attempt] = await db.deliveryAttempt.findMany({ where: { deliveryId: planned[0]!.deliveryId } })
    expect(attempt).toMatchObject({ responseStatus: 410, error: 'The receiver answered 410 Gone: it no longer wants these deliveries.' })

    const mail = await db.mailMessage.findFirstOrThrow({ where: { tenantId: newsroom.tenant.id, text: { contains: subscription.id } } })
    expect(mail.to).toBe(newsroom.users.admin.email)
    expect(mail.subject).toContain('410 Gone')
    expect(mail.text).toContain('reason: receiver_gone')
    expect(mail.text).toContain('{"status": "enabled"}')
    const audit = await db.auditEntry.findFirstOrThrow({ where: { targetId: subscription.id, action: 'webhook.disabled' } })
    expect(audit.metadata).toMatchObject({ reason: 'receiver_gone', last_response_status: 410 })

    // The other delivery's run finds the subscription disabled and sends nothing.
    const other = await run(planned[1]!)
    expect(other.result).toMatchObject({ result: 'stopped', attempts: 1 })
    expect(receiver.requests).toHaveLength(1)
  })
})

describe('Retry-After on 429 and 503', () => {
  it('waits at least as long as a 429 asks in seconds, and as a 503 asks with an HTTP date, before the next attempts', async () => {
    const { planned } = await subscribeAndPublish()
    const tenMinutesAhead = new Date(Date.now() + 10 * 60_000).toUTCString()
    receiver.answer({ status: 429, headers: { 'Retry-After': '150' } }, { status: 503, headers: { 'Retry-After': tenMinutesAhead } }, { status: 200 })
    const due: number[] = []
    receiver.onRequest = async (_request, count) => {
      if (count === 1) return
      const delivery = await db.delivery.findUniqueOrThrow({ where: { id: planned[0]!.deliveryId } })
      due.push(delivery.nextAttemptAt!.getTime() - Date.now())
    }

    const { result, sleeps } = await run(planned[0]!)

    expect(result).toMatchObject({ result: 'succeeded', attempts: 3 })
    // The schedule's 1 min became the asked 150 s; its 5 min became the asked 10 min.
    expect(sleeps.map(([id]) => id)).toEqual(['wait-before-retry-1', 'wait-before-retry-2'])
    expect(seconds(sleeps[0]![1])).toBe(150)
    expect(seconds(sleeps[1]![1])).toBeGreaterThanOrEqual(590)
    expect(seconds(sleeps[1]![1])).toBeLessThanOrEqual(600)
    // The deliveries log said so too while the retries were due.
    expect(due[0]).toBeGreaterThan(140_000)
    expect(due[1]).toBeGreaterThan(580_000)
    const attempts = await db.deliveryAttempt.findMany({ where: { deliveryId: planned[0]!.deliveryId }, orderBy: { attempt: 'asc' } })
    expect(attempts[0]!.error).toBe('The receiver answered 429 and asked to wait 150 s (Retry-After).')
  })

  it('keeps the schedule when Retry-After asks for less, caps it at a day, and never adds attempts', async () => {
    const { subscription, planned } = await subscribeAndPublish()
    receiver.answer(
      { status: 503, headers: { 'Retry-After': '5' } },
      { status: 429, headers: { 'Retry-After': String(30 * 24 * 3600) } },
      ...Array.from({ length: 5 }, () => ({ status: 429, headers: { 'Retry-After': '3600' } })),
    )

    const { result, sleeps } = await run(planned[0]!)

    expect(result).toMatchObject({ result: 'failed', attempts: 7, disabled: true })
    expect(receiver.requests).toHaveLength(7)
    expect(sleeps).toEqual([
      ['wait-before-retry-1', '1m'],
      ['wait-before-retry-2', `${24 * 3600}s`],
      ['wait-before-retry-3', `${3600}s`],
      ['wait-before-retry-4', '2h'],
      ['wait-before-retry-5', '12h'],
      ['wait-before-retry-6', '24h'],
    ])
    expect(await db.webhookSubscription.findUniqueOrThrow({ where: { id: subscription.id } })).toMatchObject({ status: 'disabled', disabledReason: 'delivery_failures' })
  })
})
