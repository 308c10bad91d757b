import { readFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { db } from '../../lib/db/client.ts'
import { clusterLayout } from '../../scripts/cluster-layout.ts'
import { restartApp } from '../../scripts/cluster.ts'
import { apiClient } from '../support/api-client.ts'
import { startFakeInngest } from '../support/fake-inngest.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { startWebhookReceiver } from '../support/webhook-receiver.ts'

// Inngest's side of the cluster: every instance hands its outbox to the queue (here the
// stand-in of tests/support/fake-inngest.ts, which drives functions over /api/inngest the way
// Inngest does), and Inngest may run a function again, on any instance. Each webhook is
// still delivered once, and a scheduled publication fires once.

const layout = clusterLayout()
const haproxy = `http://127.0.0.1:${layout.ports.haproxy}`
const instance = (index: number) => `http://127.0.0.1:${layout.ports.apps[index]}`

let inngest: Awaited<ReturnType<typeof startFakeInngest>>
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>
let newsroom: TestTenant
let token: string

/** Restarts every instance with `env` added (or removed, for undefined values). */
async function restartInstances(env: Record<string, string | undefined>): Promise<void> {
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
  for (let index = 0; index < 3; index++) {
    const pid = Number(readFileSync(path.join(layout.dir, `app-${index + 1}.pid`), 'utf8'))
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // already gone
    }
  }
  await Promise.all([0, 1, 2].map((index) => restartApp(index)))
}

beforeAll(async () => {
  inngest = await startFakeInngest()
  receiver = await startWebhookReceiver()
  await restartInstances({ INNGEST_DEV: inngest.url, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' })
  newsroom = await createTestTenant({ plan: 'enterprise' })
  token = await newsroom.token(['articles:read', 'articles:write', 'webhooks:manage'], 'admin')
}, 180_000)

afterAll(async () => {
  await restartInstances({ INNGEST_DEV: undefined, WEBHOOK_ALLOW_PRIVATE_URLS: undefined })
  await inngest.stop()
  await receiver.close()
  await db.$disconnect()
}, 180_000)

describe('the queue across instances', () => {
  it('delivers each webhook once, though Inngest runs the fan-out and the delivery again on other instances', async () => {
    const client = apiClient(haproxy, token)
    const subscription = await client.post('/v1/webhooks', { url: receiver.url, events: ['article.created'], secret: 'cluster-signing-secret-0123' })
    expect(subscription.status, subscription.text).toBe(201)
    const article = (await client.post('/v1/articles', { headline: 'Ferry timetable changes' })).body
    const [created] = await inngest.waitForEvents((event) => event.name === 'newsroom/article.created' && event.data.data.article_id === article.article_id)

    // The fan-out, run by two instances at once (a retry overlapping the first run).
    const fanOuts = await Promise.all([0, 1].map((index) => inngest.runFunction(instance(index), 'newsroom-fan-out-event', created!)))
    expect(fanOuts.map((run) => run.output)).toEqual([
      { eventId: created!.id, deliveries: 1 },
      { eventId: created!.id, deliveries: 1 },
    ])
    expect(await db.delivery.count({ where: { eventId: created!.id } })).toBe(1)
    const requested = await inngest.waitForEvents((event) => event.name === 'newsroom/webhook.delivery_requested' && event.data.event_id === created!.id)

    // The delivery, run on the third instance and again on the first once it has finished.
    await inngest.runFunction(instance(2), 'newsroom-deliver-webhook', requested[0]!)
    await inngest.runFunction(instance(0), 'newsroom-deliver-webhook', requested[0]!)
    const deliveredTo = receiver.requests.filter((request) => JSON.parse(request.body).data?.article_id === article.article_id)
    expect(deliveredTo).toHaveLength(1)
    expect(deliveredTo[0]!.headers['x-service-delivery']).toBe(requested[0]!.data.delivery_id)
  })

  it('fires a scheduled publication once, though two instances run it at the same moment', async () => {
    const client = apiClient(haproxy, token)
    const article = (await client.post('/v1/articles', { headline: 'Council vote tonight' })).body
    for (const to_state of ['in-review', 'approved']) expect((await client.post(`/v1/articles/${article.article_id}/transitions`, { to_state })).status).toBe(200)
    const publishAt = new Date(Date.now() + 60_000).toISOString()
    expect((await client.post(`/v1/articles/${article.article_id}/transitions`, { to_state: 'published', publish_at: publishAt })).status).toBe(200)
    const [scheduled] = await inngest.waitForEvents((event) => event.name === 'newsroom/article.publish_scheduled' && event.data.data.article_id === article.article_id)

    // The stand-in treats the sleep until publish_at as elapsed: both runs publish "now".
    const runs = await Promise.all([1, 2].map((index) => inngest.runFunction(instance(index), 'newsroom-publish-scheduled-article', scheduled!)))
    expect(runs.map((run) => run.output.published).sort()).toEqual([false, true])
    const transitions = await db.articleTransition.count({ where: { articleId: article.article_id, toState: 'published', scheduleCancelled: false, actorId: null } })
    expect(transitions).toBe(1)
    expect(await db.event.count({ where: { kind: 'article.published', data: { path: ['article_id'], equals: article.article_id } } })).toBe(1)
    expect((await client.get(`/v1/articles/${article.article_id}`)).body.status).toBe('published')
  })
})
