import type pg from 'pg'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { sqlPool } from '../../lib/db/client.ts'
import { createId } from '../../lib/ids.ts'
import { createWebhook } from '../../lib/webhooks/manage-subscriptions.ts'
import { pruneEvents } from '../../lib/events/prune-events.ts'
import { pruneDeliveryLog } from '../../lib/webhooks/prune-delivery-log.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { stubEnv } from '../support/stub-env.ts'

// The webhook deliveries log is kept for DELIVERY_LOG_RETENTION_DAYS (30) and events for
// EVENTS_RETENTION_DAYS (30): the nightly prunes (deliveries first, then events) remove what has
// finished and nothing that may still be sent, and no event a delivery still refers to. Each test writes its rows and
// prunes inside one transaction it rolls back: an unsent or pending row committed here would be
// taken by the outbox and delivery sweepers that other test files run beside this one.

const now = new Date('2026-11-25T03:37:00.000Z')
const daysAgo = (days: number) => new Date(now.getTime() - days * 86_400_000)

let newsroom: TestTenant
let other: TestTenant
const subscriptions = new Map<TestTenant, string>()
let client: pg.PoolClient

beforeAll(async () => {
  stubEnv({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_SECRET_KEY: 'retention-test-key' })
  ;[newsroom, other] = await Promise.all([createTestTenant(), createTestTenant()])
  for (const tenant of [newsroom, other]) {
    const subscription = await createWebhook(tenant.actor('admin'), { url: 'http://127.0.0.1:9/hook', events: ['article.published'], secret: 'retention-secret-01' })
    subscriptions.set(tenant, subscription.id)
  }
})

beforeEach(async () => {
  client = await sqlPool.connect()
  await client.query('BEGIN')
})

afterEach(async () => {
  await client.query('ROLLBACK')
  client.release()
})

afterAll(() => vi.unstubAllEnvs())

type Fixture = { tenant?: TestTenant; kind?: string; data?: object; createdDaysAgo: number; sentDaysAgo: number | null; delivery?: 'succeeded' | 'failed' | 'pending' | 'held' }
type Written = { eventId: string; deliveryId?: string; attemptId?: string }

/** An event as the outbox left it, with one delivery (and its attempt) when `delivery` is given. */
async function eventWith({ tenant = newsroom, kind = 'article.published', data = {}, createdDaysAgo, sentDaysAgo, delivery }: Fixture): Promise<Written> {
  const at = daysAgo(createdDaysAgo)
  const eventId = createId('evt')
  await client.query(`INSERT INTO events (id, tenant_id, kind, occurred_at, created_at, sent_to_queue_at, data) VALUES ($1, $2, $3, $4, $4, $5, $6)`, [
    eventId,
    tenant.tenant.id,
    kind,
    at,
    sentDaysAgo === null ? null : daysAgo(sentDaysAgo),
    data,
  ])
  if (!delivery) return { eventId }
  const deliveryId = createId('dlv')
  await client.query(`INSERT INTO deliveries (id, tenant_id, event_id, subscription_id, status, held_at, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`, [
    deliveryId,
    tenant.tenant.id,
    eventId,
    subscriptions.get(tenant),
    delivery === 'held' ? 'pending' : delivery,
    delivery === 'held' ? at : null,
    at,
  ])
  const attemptId = createId('att')
  await client.query(`INSERT INTO delivery_attempts (id, delivery_id, attempt, at, response_status, duration_ms, response_body) VALUES ($1, $2, 1, $3, $4, 30, $5)`, [
    attemptId,
    deliveryId,
    at,
    delivery === 'succeeded' ? 200 : 500,
    'x'.repeat(4096),
  ])
  return { eventId, deliveryId, attemptId }
}

async function stillThere(written: Written) {
  const exists = async (table: string, id: string) => (await client.query(`SELECT 1 FROM ${table} WHERE id = $1`, [id])).rowCount === 1
  return {
    event: await exists('events', written.eventId),
    ...(written.deliveryId && { delivery: await exists('deliveries', written.deliveryId) }),
    ...(written.attemptId && { attempt: await exists('delivery_attempts', written.attemptId) }),
  }
}

describe('pruneDeliveryLog', () => {
  it('deletes finished deliveries, their attempts and their events past the retention period, in every newsroom', async () => {
    const succeeded = await eventWith({ createdDaysAgo: 40, sentDaysAgo: 40, delivery: 'succeeded' })
    const failed = await eventWith({ createdDaysAgo: 31, sentDaysAgo: 31, delivery: 'failed' })
    const elsewhere = await eventWith({ tenant: other, createdDaysAgo: 60, sentDaysAgo: 60, delivery: 'succeeded' })
    const unsubscribed = await eventWith({ createdDaysAgo: 45, sentDaysAgo: 45 })
    const publishedLongAgo = await eventWith({ kind: 'article.publish_scheduled', data: { article_id: 'art_x', publish_at: daysAgo(35).toISOString() }, createdDaysAgo: 50, sentDaysAgo: 50 })

    const pruned = { ...(await pruneDeliveryLog(now, client)), ...(await pruneEvents(now, client)) }

    expect(pruned.deliveries).toBeGreaterThanOrEqual(3)
    expect(pruned.events).toBeGreaterThanOrEqual(5)
    for (const written of [succeeded, failed, elsewhere]) expect(await stillThere(written)).toEqual({ event: false, delivery: false, attempt: false })
    expect(await stillThere(unsubscribed)).toEqual({ event: false })
    expect(await stillThere(publishedLongAgo)).toEqual({ event: false })
  })

  it('keeps whatever may still be sent or is within the period, however old', async () => {
    const kept = {
      recent: await eventWith({ createdDaysAgo: 29, sentDaysAgo: 29, delivery: 'succeeded' }),
      retrying: await eventWith({ createdDaysAgo: 40, sentDaysAgo: 40, delivery: 'pending' }),
      heldForPausedSubscription: await eventWith({ createdDaysAgo: 50, sentDaysAgo: 50, delivery: 'held' }),
      neverHandedToQueue: await eventWith({ createdDaysAgo: 40, sentDaysAgo: null }),
      handedToQueueLately: await eventWith({ createdDaysAgo: 40, sentDaysAgo: 2 }),
      // Scheduled months ahead: until its moment has passed by the period, it is kept.
      scheduledPublication: await eventWith({ kind: 'article.publish_scheduled', data: { article_id: 'art_y', publish_at: daysAgo(-20).toISOString() }, createdDaysAgo: 90, sentDaysAgo: 90 }),
      publishedWithinThePeriod: await eventWith({ kind: 'article.publish_scheduled', data: { article_id: 'art_z', publish_at: daysAgo(10).toISOString() }, createdDaysAgo: 90, sentDaysAgo: 90 }),
    }

    await pruneDeliveryLog(now, client)
    await pruneEvents(now, client)

    for (const [name, written] of Object.entries(kept)) {
      const everything = written.deliveryId ? { event: true, delivery: true, attempt: true } : { event: true }
      expect({ name, ...(await stillThere(written)) }).toEqual({ name, ...everything })
    }
  })

  it('follows DELIVERY_LOG_RETENTION_DAYS', async () => {
    stubEnv({ DELIVERY_LOG_RETENTION_DAYS: '7' })
    const weekOld = await eventWith({ createdDaysAgo: 8, sentDaysAgo: 8, delivery: 'succeeded' })
    const daysOld = await eventWith({ createdDaysAgo: 6, sentDaysAgo: 6, delivery: 'succeeded' })
    await pruneDeliveryLog(now, client)
    // The events API's period (30 days) still holds the week-old event after its delivery went.
    await pruneEvents(now, client)
    expect(await stillThere(weekOld)).toEqual({ event: true, delivery: false, attempt: false })
    expect(await stillThere(daysOld)).toEqual({ event: true, delivery: true, attempt: true })
  })
})

describe('pruneEvents', () => {
  it('follows EVENTS_RETENTION_DAYS, and never deletes an event a kept delivery refers to', async () => {
    stubEnv({ EVENTS_RETENTION_DAYS: '7', DELIVERY_LOG_RETENTION_DAYS: '30' })
    const unsubscribedWeekOld = await eventWith({ createdDaysAgo: 8, sentDaysAgo: 8 })
    const unsubscribedDaysOld = await eventWith({ createdDaysAgo: 6, sentDaysAgo: 6 })
    const deliveredWeekOld = await eventWith({ createdDaysAgo: 8, sentDaysAgo: 8, delivery: 'succeeded' })
    await pruneDeliveryLog(now, client)
    await pruneEvents(now, client)
    expect(await stillThere(unsubscribedWeekOld)).toEqual({ event: false })
    expect(await stillThere(unsubscribedDaysOld)).toEqual({ event: true })
    // Its delivery is in the log for 30 days, and the log links its event.
    expect(await stillThere(deliveredWeekOld)).toEqual({ event: true, delivery: true, attempt: true })
  })

  it('keeps an event the events period promises even after the deliveries log let its delivery go', async () => {
    stubEnv({ EVENTS_RETENTION_DAYS: '60', DELIVERY_LOG_RETENTION_DAYS: '30' })
    const delivered = await eventWith({ createdDaysAgo: 40, sentDaysAgo: 40, delivery: 'succeeded' })
    const older = await eventWith({ createdDaysAgo: 61, sentDaysAgo: 61, delivery: 'succeeded' })
    await pruneDeliveryLog(now, client)
    await pruneEvents(now, client)
    expect(await stillThere(delivered)).toEqual({ event: true, delivery: false, attempt: false })
    expect(await stillThere(older)).toEqual({ event: false, delivery: false, attempt: false })
  })
})
