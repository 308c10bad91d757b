import { InngestTestEngine } from '@inngest/test'
import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { deliverWebhook } from '../../inngest/functions/deliver-webhook.ts'
import { recordEvents } from '../../lib/events/record-event.ts'
import { tenantDb } from '../../lib/tenancy/tenant-db.ts'
import { createDeliveriesForEvent } from '../../lib/webhooks/create-deliveries.ts'
import { createWebhook } from '../../lib/webhooks/manage-subscriptions.ts'
import { retrySchedule } from '../../lib/webhooks/retry-schedule.ts'
import { rotateWebhookSecret } from '../../lib/webhooks/rotate-secret.ts'
import { standardWebhooksSecret, verifyPayloadSignature } from '../../lib/webhooks/sign-payload.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { stubEnv } from '../support/stub-env.ts'
import { startWebhookReceiver, stringHeaders } from '../support/webhook-receiver.ts'

// Real deliveries (the deliver-webhook function under @inngest/test, real database, a real
// receiver on 127.0.0.1) checked the way a subscriber would: with the published
// `standardwebhooks` package, given our secret as whsec_ + base64 of its UTF-8 bytes.

let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>
let newsroom: TestTenant

beforeAll(async () => {
  stubEnv({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_SECRET_KEY: 'standard-webhooks-test-key', SMTP_URL: undefined })
  receiver = await startWebhookReceiver()
})

afterAll(async () => {
  await receiver.close()
  vi.unstubAllEnvs()
})

beforeEach(async () => {
  receiver.reset()
  newsroom = await createTestTenant()
})

async function publishEvent() {
  const [event] = await tenantDb(newsroom.tenant.id).$transaction((tx) =>
    recordEvents(tx, newsroom.tenant.id, [{ kind: 'article.published', data: { article_id: 'art_std', headline: 'Café opens' } }]),
  )
  const [planned] = await createDeliveriesForEvent(event!.id)
  return planned!
}

function runDelivery(planned: Awaited<ReturnType<typeof publishEvent>>) {
  return new InngestTestEngine({
    function: deliverWebhook,
    events: [
      {
        name: 'newsroom/webhook.delivery_requested',
        data: { delivery_id: planned.deliveryId, subscription_id: planned.subscriptionId, tenant_id: planned.tenantId, event_id: planned.eventId, kind: planned.kind },
      },
    ],
    steps: retrySchedule.map((wait) => ({ id: wait.id, handler: () => null })),
  }).execute()
}

describe('Standard Webhooks headers', () => {
  it('every attempt verifies with the standardwebhooks package, with the delivery id as a webhook-id stable across retries', async () => {
    const secret = 'sécret chosen by the subscriber'
    await createWebhook(newsroom.actor('admin'), { url: receiver.url, events: ['article.published'], secret })
    const planned = await publishEvent()
    receiver.answer({ status: 503 }, { status: 500 }, { status: 204 })

    const { result } = await runDelivery(planned)
    expect(result).toMatchObject({ result: 'succeeded', attempts: 3 })

    expect(receiver.requests).toHaveLength(3)
    const verifier = new Webhook(standardWebhooksSecret(secret))
    for (const request of receiver.requests) {
      expect(request.headers['webhook-id']).toBe(planned.deliveryId)
      expect(request.headers['x-service-delivery']).toBe(planned.deliveryId)
      const timestamp = Number(request.headers['webhook-timestamp'])
      expect(Math.abs(timestamp - request.at / 1000)).toBeLessThan(5)
      expect(verifier.verify(request.body, stringHeaders(request.headers))).toMatchObject({ event: 'article.published', data: { headline: 'Café opens' } })
      // The service's own header is unchanged beside them.
      expect(verifyPayloadSignature(request.body, secret, String(request.headers['x-service-signature']))).toBe(true)
    }
    // A tampered body, or another subscriber's secret, is refused by the same package.
    const [first] = receiver.requests
    expect(() => verifier.verify(first!.body.replace('Café', 'Cafe'), stringHeaders(first!.headers))).toThrow(/signature/i)
    expect(() => new Webhook(standardWebhooksSecret('someone-elses-secret')).verify(first!.body, stringHeaders(first!.headers))).toThrow(/signature/i)
  })
})

describe('secret rotation', () => {
  it('verifies with the old secret before, with old and new during the 24 h overlap, and only with the new one after', async () => {
    const oldSecret = 'the-secret-before-rotation'
    const subscription = await createWebhook(newsroom.actor('admin'), { url: receiver.url, events: ['article.published'], secret: oldSecret })
    const withOld = new Webhook(standardWebhooksSecret(oldSecret))
    const deliverOne = async () => {
      receiver.reset()
      const { result } = await runDelivery(await publishEvent())
      expect(result).toMatchObject({ result: 'succeeded', attempts: 1 })
      const [request] = receiver.requests
      return { body: request!.body, headers: stringHeaders(request!.headers) }
    }

    const before = await deliverOne()
    expect(before.headers['webhook-signature']!.split(' ')).toHaveLength(1)
    expect(withOld.verify(before.body, before.headers)).toMatchObject({ event: 'article.published' })

    const { secret: newSecret } = await rotateWebhookSecret(newsroom.actor('admin'), subscription.id)
    const withNew = new Webhook(standardWebhooksSecret(newSecret))
    const during = await deliverOne()
    expect(during.headers['webhook-signature']!.split(' ')).toHaveLength(2)
    expect(withOld.verify(during.body, during.headers)).toMatchObject({ event: 'article.published' })
    expect(withNew.verify(during.body, during.headers)).toMatchObject({ event: 'article.published' })
    // X-Service-Signature switches to the new secret at once.
    expect(verifyPayloadSignature(during.body, newSecret, during.headers['x-service-signature']!)).toBe(true)
    expect(verifyPayloadSignature(during.body, oldSecret, during.headers['x-service-signature']!)).toBe(false)

    // A rotation made 25 hours ago: its overlap is over.
    const { secret: newest } = await rotateWebhookSecret(newsroom.actor('admin'), subscription.id, new Date(Date.now() - 25 * 3_600_000))
    const after = await deliverOne()
    expect(after.headers['webhook-signature']!.split(' ')).toHaveLength(1)
    expect(new Webhook(standardWebhooksSecret(newest)).verify(after.body, after.headers)).toMatchObject({ event: 'article.published' })
    expect(() => withNew.verify(after.body, after.headers)).toThrow(/signature/i)
    expect(() => withOld.verify(after.body, after.headers)).toThrow(/signature/i)
  })
})
