import { createHmac, timingSafeEqual } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { functions } from '../../inngest/functions/index.ts'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createArticle } from '../../lib/articles/create-article.ts'
import { db } from '../../lib/db/client.ts'
import { recordEvents } from '../../lib/events/record-event.ts'
import { commitChange } from '../../lib/events/commit-change.ts'
import { createId } from '../../lib/ids.ts'
import { tenantDb } from '../../lib/tenancy/tenant-db.ts'
import { createDeliveriesForEvent } from '../../lib/webhooks/create-deliveries.ts'
import { createWebhook } from '../../lib/webhooks/manage-subscriptions.ts'
import { stuckAfterMs } from '../../lib/webhooks/sweep-deliveries.ts'
import { startFakeInngest } from '../support/fake-inngest.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { startInngestRouteServer } from '../support/inngest-route-server.ts'
import { stubEnv } from '../support/stub-env.ts'

// The real /api/inngest endpoint (serve() from inngest/next) driven over HTTP by a stand-in
// for Inngest's executor, in dev mode, with the webhook receiver verifying each delivery the
// way docs/webhooks.md tells integrators to.

const secret = 'receiver-shared-secret-0123456789'
let fakeInngest: Awaited<ReturnType<typeof startFakeInngest>>
let app: Awaited<ReturnType<typeof startInngestRouteServer>>
let receiver: Server
let receiverUrl: string
const received: { body: Buffer; headers: Record<string, string | string[] | undefined>; valid: boolean }[] = []
let answers: number[] = []
let newsroom: TestTenant

/** The documented receiver check: HMAC-SHA256 of the raw body, hex, constant-time compare. */
function verify(rawBody: Buffer, header: string | undefined): boolean {
  if (!header) return false
  const expected = Buffer.from(createHmac('sha256', secret).update(rawBody).digest('hex'), 'utf8')
  const given = Buffer.from(header, 'utf8')
  return expected.length === given.length && timingSafeEqual(expected, given)
}

beforeAll(async () => {
  fakeInngest = await startFakeInngest()
  // The fan-out test gives the newsroom 100 subscriptions, as an operator who allows 200 may.
  stubEnv({ INNGEST_DEV: fakeInngest.url, WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_SECRET_KEY: 'endpoint-test-key', WEBHOOK_MAX_SUBSCRIPTIONS: '200' })
  app = await startInngestRouteServer()
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      const valid = verify(body, req.headers['x-service-signature'] as string | undefined)
      received.push({ body, headers: req.headers, valid })
      res.writeHead(valid ? (answers.shift() ?? 200) : 401).end()
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/newsroom`
  newsroom = await createTestTenant()
})

afterAll(async () => {
  await app?.close()
  await fakeInngest?.stop()
  await new Promise((resolve) => { receiver?.closeAllConnections(); receiver?.close(resolve) })
  vi.unstubAllEnvs()
})

describe('/api/inngest driven like Inngest drives it', () => {
  it('introspection (GET) reports every function the app defines, in dev mode', async () => {
    const response = await fetch(`${app.url}/api/inngest`)
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({ function_count: functions.length, mode: 'dev' })
    expect(functions.map((fn) => fn.id())).toEqual(expect.arrayContaining(['fan-out-event', 'deliver-webhook', 'outbox-sweeper', 'delivery-sweeper', 'prune-request-log', 'prune-delivery-log', 'prune-events', 'prune-portal-sessions']))
  })

  it('an article change travels outbox → fan-out → delivery, and the receiver verifies the signature', async () => {
    const subscription = await createWebhook(newsroom.actor('admin'), { url: receiverUrl, events: ['article.created'], secret })
    const article = await createArticle(newsroom.actor('editor'), { headline: 'Bridge reopens after repairs' })

    const [outboxEvent] = await fakeInngest.waitForEvents((event) => event.name === 'newsroom/article.created' && event.data.data.article_id === article.id)
    const fanOut = await fakeInngest.runFunction(app.url, 'newsroom-fan-out-event', outboxEvent!)
    expect(fanOut.output).toEqual({ eventId: outboxEvent!.id, deliveries: 1 })

    const [deliveryEvent] = await fakeInngest.waitForEvents((event) => event.name === 'newsroom/webhook.delivery_requested' && event.data.event_id === outboxEvent!.id)
    expect(deliveryEvent!.data).toMatchObject({ subscription_id: subscription.id, tenant_id: newsroom.tenant.id, kind: 'article.created' })
    expect(deliveryEvent!.id).toBe(deliveryEvent!.data.delivery_id)

    const delivered = await fakeInngest.runFunction(app.url, 'newsroom-deliver-webhook', deliveryEvent!)
    expect(delivered.output).toEqual({ deliveryId: deliveryEvent!.data.delivery_id, result: 'succeeded', attempts: 1 })

    expect(received).toHaveLength(1)
    const [request] = received
    expect(request!.valid).toBe(true)
    expect(request!.headers['content-type']).toBe('application/json')
    expect(request!.headers['user-agent']).toBe('Newsroom-Webhooks/1.0')
    expect(request!.headers['x-service-event']).toBe('article.created')
    expect(request!.headers['x-service-delivery']).toBe(deliveryEvent!.data.delivery_id)
    const envelope = JSON.parse(request!.body.toString('utf8'))
    expect(envelope).toMatchObject({ event_id: outboxEvent!.id, event: 'article.created', tenant_id: newsroom.tenant.id, data: { article_id: article.id, headline: 'Bridge reopens after repairs' } })
    expect(envelope.occurred_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)

    const row = await db.delivery.findUniqueOrThrow({ where: { id: deliveryEvent!.data.delivery_id }, include: { attempts: true } })
    expect(row.status).toBe('succeeded')
    expect(row.attempts).toMatchObject([{ attempt: 1, responseStatus: 200, error: null }])
  })

  it('a failed attempt becomes a durable sleep named after its retry; the retry carries the same delivery id', async () => {
    received.length = 0
    answers = [500]
    const subscription = await createWebhook(newsroom.actor('admin'), { url: receiverUrl, events: ['article.updated'], secret })
    const events = await commitChange(tenantDb(newsroom.tenant.id), newsroom.tenant.id, (_tx, emit) =>
      emit([{ kind: 'article.updated', data: { article_id: 'art_x', headline: 'Retry me' } }]),
    )
    const [outboxEvent] = await fakeInngest.waitForEvents((event) => event.id === events[0]!.id)
    await fakeInngest.runFunction(app.url, 'newsroom-fan-out-event', outboxEvent!)
    const [deliveryEvent] = await fakeInngest.waitForEvents((event) => event.name === 'newsroom/webhook.delivery_requested' && event.data.subscription_id === subscription.id)

    const run = await fakeInngest.runFunction(app.url, 'newsroom-deliver-webhook', deliveryEvent!)
    expect(run.output).toMatchObject({ result: 'succeeded', attempts: 2 })
    const sleeps = run.ops.filter((op) => op.op === 'Sleep')
    expect(sleeps.map((op) => [op.displayName, op.name])).toEqual([['wait-before-retry-1', '1m']])
    expect(received.map((request) => request.headers['x-service-delivery'])).toEqual([deliveryEvent!.data.delivery_id, deliveryEvent!.data.delivery_id])
    expect(received.every((request) => request.valid)).toBe(true)
    const attempts = await db.deliveryAttempt.findMany({ where: { deliveryId: deliveryEvent!.data.delivery_id }, orderBy: { attempt: 'asc' } })
    expect(attempts.map((attempt) => [attempt.attempt, attempt.responseStatus])).toEqual([[1, 500], [2, 200]])
  })

  it('fans one event out to 100 subscriptions and enqueues their deliveries in one send', async () => {
    const owner = newsroom.users.admin.id
    await db.webhookSubscription.createMany({
      data: Array.from({ length: 100 }, (_, i) => ({
        id: createId('whk'),
        tenantId: newsroom.tenant.id,
        url: `${receiverUrl}?n=${i}`,
        events: ['article.archived'],
        secretEncrypted: 'unused-in-this-test',
        ownerId: owner,
      })),
    })
    const events = await commitChange(tenantDb(newsroom.tenant.id), newsroom.tenant.id, (_tx, emit) =>
      emit([{ kind: 'article.archived', data: { article_id: 'art_fanout' } }]),
    )
    const [outboxEvent] = await fakeInngest.waitForEvents((event) => event.id === events[0]!.id)

    const fanOut = await fakeInngest.runFunction(app.url, 'newsroom-fan-out-event', outboxEvent!)
    const enqueued = await fakeInngest.waitForEvents((event) => event.name === 'newsroom/webhook.delivery_requested' && event.data.event_id === outboxEvent!.id, 100)

    expect(fanOut.output).toEqual({ eventId: outboxEvent!.id, deliveries: 100 })
    expect(fanOut.ops.filter((op) => op.displayName === 'enqueue-deliveries')).toHaveLength(1)
    expect(new Set(enqueued.map((event) => event.data.delivery_id)).size).toBe(100)
    expect(await db.delivery.count({ where: { eventId: outboxEvent!.id } })).toBe(100)

    // Running the fan-out again (Inngest retrying it, or a re-sent event) creates nothing new.
    const again = await fakeInngest.runFunction(app.url, 'newsroom-fan-out-event', outboxEvent!)
    expect(again.output).toEqual({ eventId: outboxEvent!.id, deliveries: 100 })
    expect(await db.delivery.count({ where: { eventId: outboxEvent!.id } })).toBe(100)
  })

  it('the delivery sweeper re-requests a delivery its run abandoned, and the new run delivers it', async () => {
    received.length = 0
    answers = []
    const subscription = await createWebhook(newsroom.actor('admin'), { url: receiverUrl, events: ['media.deleted'], secret })
    const [event] = await tenantDb(newsroom.tenant.id).$transaction((tx) => recordEvents(tx, newsroom.tenant.id, [{ kind: 'media.deleted', data: { media_id: 'med_stuck' } }]))
    const [planned] = await createDeliveriesForEvent(event!.id)
    // Its run never got going (Inngest gave up on it), and it is long overdue.
    await db.delivery.update({ where: { id: planned!.deliveryId }, data: { createdAt: new Date(Date.now() - stuckAfterMs - 60_000) } })

    const sweep = await fakeInngest.runFunction(app.url, 'newsroom-delivery-sweeper', { name: 'inngest/scheduled.timer', data: { cron: '* * * * *' } })
    expect(sweep.output).toMatchObject({ requeued: expect.any(Number) })
    const [request] = await fakeInngest.waitForEvents((candidate) => candidate.id === `${planned!.deliveryId}-g1`)
    expect(request!.data).toMatchObject({ delivery_id: planned!.deliveryId, subscription_id: subscription.id, generation: 1 })

    const run = await fakeInngest.runFunction(app.url, 'newsroom-deliver-webhook', request!)
    expect(run.output).toMatchObject({ result: 'succeeded', attempts: 1 })
    expect(received).toHaveLength(1)
    expect(received[0]!.valid).toBe(true)
    expect(received[0]!.headers['webhook-id']).toBe(planned!.deliveryId)
    expect(await db.delivery.findUniqueOrThrow({ where: { id: planned!.deliveryId } })).toMatchObject({ status: 'succeeded', runGeneration: 1 })
  })

  it('outside dev mode it runs only calls signed with INNGEST_SIGNING_KEY', async () => {
    const signingKey = `signkey-test-${'ab'.repeat(32)}`
    stubEnv({ INNGEST_DEV: '0', INNGEST_SIGNING_KEY: signingKey, INNGEST_EVENT_KEY: 'test-event-key', INNGEST_BASE_URL: fakeInngest.url })
    try {
      const tick = { name: 'inngest/scheduled.timer', data: { cron: '* * * * *' } }
      await expect(fakeInngest.runFunction(app.url, 'newsroom-outbox-sweeper', tick)).rejects.toThrow(/401/)
      await expect(fakeInngest.runFunction(app.url, 'newsroom-outbox-sweeper', tick, { sign: () => `t=${Math.floor(Date.now() / 1000)}&s=${'0'.repeat(64)}` })).rejects.toThrow(/401/)
      // Inngest signs the canonical JSON of the body followed by the timestamp, keyed with the
      // signing key without its prefix.
      const sign = (body: string) => {
        const ts = String(Math.floor(Date.now() / 1000))
        const mac = createHmac('sha256', signingKey.replace(/^signkey-\w+-/, '')).update(canonicalJson(JSON.parse(body)) + ts).digest('hex')
        return `t=${ts}&s=${mac}`
      }
      const run = await fakeInngest.runFunction(app.url, 'newsroom-outbox-sweeper', tick, { sign })
      expect(run.output).toMatchObject({ remaining: false, error: null })
    } finally {
      stubEnv({ INNGEST_DEV: fakeInngest.url })
    }
  })
})

/** RFC 8785-style canonical JSON (sorted keys), as Inngest signs it. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`
  }
  return JSON.stringify(value)
}
