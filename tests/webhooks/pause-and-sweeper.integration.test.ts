import { InngestTestEngine } from '@inngest/test'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { deliverWebhook } from '../../inngest/functions/deliver-webhook.ts'
import { deliverySweeper } from '../../inngest/functions/delivery-sweeper.ts'
import type { DeliveryRequestedData } from '../../inngest/events.ts'
import { db } from '../../lib/db/client.ts'
import { recordEvents } from '../../lib/events/record-event.ts'
import { tenantDb } from '../../lib/tenancy/tenant-db.ts'
import { createDeliveriesForEvent } from '../../lib/webhooks/create-deliveries.ts'
import { createWebhook, updateWebhook } from '../../lib/webhooks/manage-subscriptions.ts'
import { retrySchedule } from '../../lib/webhooks/retry-schedule.ts'
import { stuckAfterMs } from '../../lib/webhooks/sweep-deliveries.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { stubEnv } from '../support/stub-env.ts'
import { startWebhookReceiver } from '../support/webhook-receiver.ts'

// Pausing holds deliveries; the delivery sweeper sends them on resume, and also rescues
// deliveries whose run gave up on infrastructure errors. Functions run under @inngest/test
// against the real database and a real receiver on 127.0.0.1; sleeps and sends are mocked
// by step id, and what the sweeper asked to send is fed to deliver-webhook as Inngest would.

let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>
let newsroom: TestTenant

beforeAll(async () => {
  stubEnv({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_SECRET_KEY: 'pause-sweeper-key', SMTP_URL: undefined })
  receiver = await startWebhookReceiver({ status: 200 })
})

afterAll(async () => {
  await receiver.close()
  vi.unstubAllEnvs()
})

beforeEach(async () => {
  receiver.reset()
  newsroom = await createTestTenant()
  // Earlier tests' leftovers must not be swept into this test's sends.
  await db.delivery.updateMany({ where: { status: 'pending' }, data: { status: 'failed', heldAt: null } })
})

async function publish() {
  const [event] = await tenantDb(newsroom.tenant.id).$transaction((tx) => recordEvents(tx, newsroom.tenant.id, [{ kind: 'article.published', data: { article_id: 'art_pause' } }]))
  const [planned] = await createDeliveriesForEvent(event!.id)
  return { delivery_id: planned!.deliveryId, subscription_id: planned!.subscriptionId, tenant_id: planned!.tenantId, event_id: planned!.eventId, kind: planned!.kind } satisfies DeliveryRequestedData
}

function deliver(data: DeliveryRequestedData, steps: { id: string; handler: () => unknown }[] = []) {
  return new InngestTestEngine({
    function: deliverWebhook,
    events: [{ name: 'newsroom/webhook.delivery_requested', data }],
    steps: [...retrySchedule.map((wait) => ({ id: wait.id, handler: () => null })), ...steps],
  }).execute()
}

/** One sweep; returns the delivery requests it sent (with their event ids). */
async function sweep() {
  const { result, ctx } = await new InngestTestEngine({
    function: deliverySweeper,
    events: [{ name: 'inngest/scheduled.timer', data: { cron: '* * * * *' } }],
    steps: [{ id: 'request-deliveries', handler: () => ({ ids: [] }) }],
  }).execute()
  const calls = (ctx.step.sendEvent as unknown as { mock: { calls: [string, { id: string; data: DeliveryRequestedData }[]][] } }).mock.calls
  return { result, sent: calls.flatMap(([, events]) => events) }
}

describe('pause and resume', () => {
  it('holds deliveries while paused, sends none, and delivers them after resume', async () => {
    const admin = newsroom.actor('admin')
    const subscription = await createWebhook(admin, { url: receiver.url, events: ['article.published'], secret: 'pause-secret-0123456789' })
    const paused = await updateWebhook(admin, subscription.id, { status: 'paused' })
    expect(paused.status).toBe('paused')

    const request = await publish()
    const held = await deliver(request)
    expect(held.result).toMatchObject({ result: 'held' })
    expect(receiver.requests).toHaveLength(0)
    const waiting = await db.delivery.findUniqueOrThrow({ where: { id: request.delivery_id } })
    expect(waiting).toMatchObject({ status: 'pending', nextAttemptAt: null })
    expect(waiting.heldAt).toBeInstanceOf(Date)

    // Still paused: the sweeper leaves it alone.
    expect((await sweep()).sent).toEqual([])

    await updateWebhook(admin, subscription.id, { status: 'enabled' })
    const { sent } = await sweep()
    expect(sent).toEqual([expect.objectContaining({ id: `${request.delivery_id}-g1`, data: { ...request, generation: 1 } })])

    const resumed = await deliver(sent[0]!.data)
    expect(resumed.result).toMatchObject({ result: 'succeeded', attempts: 1 })
    expect(receiver.requests).toHaveLength(1)
    expect(receiver.requests[0]!.headers['webhook-id']).toBe(request.delivery_id)
    expect(await db.delivery.findUniqueOrThrow({ where: { id: request.delivery_id } })).toMatchObject({ status: 'succeeded', heldAt: null })
    expect(await db.auditEntry.count({ where: { targetId: subscription.id, action: { in: ['webhook.paused', 'webhook.resumed'] } } })).toBe(2)
  })

  it('unlike a paused one, a disabled subscription gets no deliveries, and cannot be paused', async () => {
    const admin = newsroom.actor('admin')
    const subscription = await createWebhook(admin, { url: receiver.url, events: ['article.published'], secret: 'pause-secret-0123456789' })
    await db.webhookSubscription.update({ where: { id: subscription.id }, data: { status: 'disabled', disabledAt: new Date(), disabledReason: 'delivery_failures' } })
    const [event] = await tenantDb(newsroom.tenant.id).$transaction((tx) => recordEvents(tx, newsroom.tenant.id, [{ kind: 'article.published', data: {} }]))
    expect(await createDeliveriesForEvent(event!.id)).toEqual([])
    await expect(updateWebhook(admin, subscription.id, { status: 'paused' })).rejects.toMatchObject({ status: 409, code: 'webhook_disabled' })
  })
})

describe('the delivery sweeper', () => {
  it('re-requests a delivery whose run gave up on infrastructure errors, continuing its schedule; the old run cannot come back', async () => {
    const subscription = await createWebhook(newsroom.actor('admin'), { url: receiver.url, events: ['article.published'], secret: 'sweeper-secret-0123456789' })
    const request = await publish()
    receiver.answer({ status: 500 })

    // The first attempt reached the receiver; the step before the second retry kept failing
    // (database unreachable) until Inngest's own retries ran out, so the run failed.
    const crashed = await deliver(request, [{ id: 'attempt-2', handler: () => { throw new Error('connect ECONNREFUSED 127.0.0.1:5432') } }])
    expect(crashed.error).toBeDefined()
    expect(receiver.requests).toHaveLength(1)
    const stuck = await db.delivery.findUniqueOrThrow({ where: { id: request.delivery_id } })
    expect(stuck.status).toBe('pending')

    // Not yet overdue by the grace period: left to its run.
    expect((await sweep()).sent).toEqual([])

    // Its retry was due well over the grace period ago.
    await db.delivery.update({ where: { id: request.delivery_id }, data: { nextAttemptAt: new Date(Date.now() - stuckAfterMs - 60_000) } })
    const { sent } = await sweep()
    expect(sent.map((event) => [event.id, event.data.generation])).toEqual([[`${request.delivery_id}-g1`, 1]])
    expect((await sweep()).sent).toEqual([])

    const rescued = await deliver(sent[0]!.data)
    expect(rescued.result).toMatchObject({ result: 'succeeded', attempts: 2 })
    const attempts = await db.deliveryAttempt.findMany({ where: { deliveryId: request.delivery_id }, orderBy: { attempt: 'asc' } })
    expect(attempts.map((attempt) => [attempt.attempt, attempt.responseStatus])).toEqual([[1, 500], [2, 200]])
    expect(await db.delivery.findUniqueOrThrow({ where: { id: request.delivery_id } })).toMatchObject({ status: 'succeeded', runGeneration: 1 })

    // A stale run of the first generation (Inngest retrying it after all) sends nothing more.
    const stale = await deliver(request)
    expect(stale.result).toMatchObject({ result: 'stopped' })
    expect(receiver.requests).toHaveLength(2)
    expect((await db.webhookSubscription.findUniqueOrThrow({ where: { id: subscription.id } })).status).toBe('enabled')
  })

  it('rescues a delivery never attempted, and a superseded run stops before sending', async () => {
    await createWebhook(newsroom.actor('admin'), { url: receiver.url, events: ['article.published'], secret: 'sweeper-secret-0123456789' })
    const request = await publish()
    await db.delivery.update({ where: { id: request.delivery_id }, data: { createdAt: new Date(Date.now() - stuckAfterMs - 60_000) } })

    const { sent } = await sweep()
    expect(sent.map((event) => event.data.delivery_id)).toEqual([request.delivery_id])
    // The original run turns up late (a backlog), after the sweep: it must not send.
    expect((await deliver(request)).result).toMatchObject({ result: 'stopped' })
    expect(receiver.requests).toHaveLength(0)
    expect((await deliver(sent[0]!.data)).result).toMatchObject({ result: 'succeeded', attempts: 1 })
    expect(receiver.requests).toHaveLength(1)
  })
})
