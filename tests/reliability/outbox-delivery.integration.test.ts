import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { db } from '../../lib/db/client.ts'
import { queueHandOffSettled } from '../../lib/events/queue-hand-off.ts'
import { sweepOutbox, type SweepResult } from '../../lib/events/sweep-outbox.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { startFakeInngest } from '../support/fake-inngest.ts'
import { createTestTenant, subscribeTo, type TestTenant } from '../support/fixtures.ts'
import { eventKinds } from '../../lib/events/event-kinds.ts'
import { stubEnv } from '../support/stub-env.ts'

// Inngest (the stand-in on 127.0.0.1) is down while 1,000 events are produced: they must all
// wait in the outbox (after the first failed send, writes stop trying the queue), and reach Inngest exactly once when it is back and a sweep runs, also
// when sweeps run side by side (several app instances start up, or the cron overlaps one).

let inngest: Awaited<ReturnType<typeof startFakeInngest>>
let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let client: ReturnType<typeof apiClient>

beforeAll(async () => {
  inngest = await startFakeInngest()
  // Long enough that no write in a test retries the stopped queue: the tests check who tries it.
  stubEnv({ INNGEST_DEV: inngest.url, QUEUE_PAUSE_AFTER_FAILURE_MS: '600000' })
  await inngest.stop()
  server = await startApiServer()
  newsroom = await createTestTenant({ plan: 'enterprise' })
  // Events go to the queue only when something would act on them: here a subscriber of every kind.
  await subscribeTo(newsroom, [...eventKinds])
  client = apiClient(server.url, await newsroom.token(['articles:write']))
})

afterAll(async () => {
  await server.close()
  await inngest.stop()
  vi.unstubAllEnvs()
})

/** 1,000 article.created events, made by two bulk imports of 500 while Inngest is down. */
async function produceThousandEvents(batch: string): Promise<string[]> {
  const articleIds: string[] = []
  for (const half of [0, 1]) {
    const answer = await client.post('/v1/articles/bulk', {
      articles: Array.from({ length: 500 }, (_, i) => ({ external_id: `${batch}-${half}-${i}`, headline: `${batch} ${half}/${i}`, body: '<p>Copy</p>', tags: [batch] })),
    })
    expect(answer.status).toBe(200)
    expect(answer.body).toMatchObject({ created: 500, failed: 0 })
    articleIds.push(...answer.body.results.map((result: { article_id: string }) => result.article_id))
  }
  const events = await db.event.findMany({ where: { tenantId: newsroom.tenant.id, kind: 'article.created', data: { path: ['tags'], array_contains: [batch] } }, select: { id: true } })
  expect(events).toHaveLength(1_000)
  // The first import tried to hand its 500 events over and failed (each row records the
  // attempt); the second came while the queue had just failed, so its writes left their events
  // to the sweeper without trying. Wait until that one attempt has finished, so none is still
  // under way when Inngest comes back.
  const ids = events.map((event) => event.id)
  const deadline = Date.now() + 20_000
  while ((await db.event.count({ where: { id: { in: ids }, sendAttempts: { gte: 1 } } })) < 500) {
    if (Date.now() > deadline) throw new Error('The first import never finished trying to send its events.')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  await queueHandOffSettled()
  expect(await db.event.count({ where: { id: { in: ids }, sendAttempts: 0 } })).toBe(500)
  return ids
}

/** Sweeps until the outbox reports nothing left; bounded, in case it never does. */
async function sweepUntilEmpty(options: Parameters<typeof sweepOutbox>[0] = {}): Promise<SweepResult[]> {
  const results: SweepResult[] = []
  for (let round = 0; round < 30; round++) {
    const result = await sweepOutbox(options)
    results.push(result)
    if (result.error) throw new Error(`Sweep failed: ${result.error}`)
    if (!result.remaining) return results
  }
  throw new Error('The outbox never emptied.')
}

function received(ids: string[]) {
  const wanted = new Set(ids)
  return inngest.events.filter((event) => wanted.has(event.id))
}

describe('outbox delivery to Inngest', () => {
  it('keeps 1,000 events while Inngest is down and delivers each exactly once when it is back', async () => {
    const ids = await produceThousandEvents('down')
    expect(await db.event.count({ where: { id: { in: ids }, sentToQueueAt: null } })).toBe(1_000)
    expect(received(ids)).toHaveLength(0)
    const failedRow = await db.event.findUniqueOrThrow({ where: { id: ids[0]! } })
    expect(failedRow.lastSendError).toMatch(/fetch failed|ECONNREFUSED/i)

    // A sweep while it is still down changes nothing and says so.
    const offline = await sweepOutbox()
    expect(offline).toMatchObject({ sent: 0, remaining: true, error: expect.stringMatching(/Inngest refused or did not answer/) })
    expect(await db.event.count({ where: { id: { in: ids }, sentToQueueAt: null } })).toBe(1_000)

    await inngest.start()
    const results = await sweepUntilEmpty()

    expect(results.reduce((sum, result) => sum + result.sent, 0)).toBe(1_000)
    const delivered = received(ids)
    expect(new Set(delivered.map((event) => event.id)).size).toBe(1_000)
    expect(delivered).toHaveLength(1_000)
    expect(delivered.every((event) => event.name === 'newsroom/article.created' && event.data.event_id === event.id && event.data.tenant_id === newsroom.tenant.id)).toBe(true)
    // The envelope carries the article record, as sent right after the change would.
    expect(delivered[0]!.data.data).toMatchObject({ article_id: expect.stringMatching(/^art_/), tags: ['down'] })
    expect(await db.event.count({ where: { id: { in: ids }, sentToQueueAt: null } })).toBe(0)
    expect(await sweepOutbox()).toEqual({ sent: 0, remaining: false, error: null })
  }, 60_000)

  it('sends each event once when several sweeps run at the same time', async () => {
    await inngest.stop()
    const ids = await produceThousandEvents('race')
    await inngest.start()

    // Three sweepers at once, small batches, so they contend for the same oldest rows again and again.
    const sweeps = await Promise.all([0, 1, 2].map(() => sweepUntilEmpty({ batchSize: 50, maxBatches: 5 })))
    const sentBySweeper = sweeps.map((results) => results.reduce((sum, result) => sum + result.sent, 0))

    const delivered = received(ids)
    const counts = new Map<string, number>()
    for (const event of delivered) counts.set(event.id, (counts.get(event.id) ?? 0) + 1)
    expect([...counts.values()].filter((count) => count > 1), 'events sent more than once').toHaveLength(0)
    expect(counts.size).toBe(1_000)
    expect(sentBySweeper.reduce((sum, sent) => sum + sent, 0)).toBe(1_000)
    expect(await db.event.count({ where: { id: { in: ids }, sentToQueueAt: null } })).toBe(0)
    console.info(`[outbox-delivery] three concurrent sweepers sent ${JSON.stringify(sentBySweeper)}`)
  }, 60_000)
})
