import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createArticle } from '../../lib/articles/create-article.ts'
import { transitionArticle } from '../../lib/articles/transition-article.ts'
import { db } from '../../lib/db/client.ts'
import { commitChange } from '../../lib/events/commit-change.ts'
import { queueHandOffSettled } from '../../lib/events/queue-hand-off.ts'
import { recordEvents } from '../../lib/events/record-event.ts'
import { sweepOutbox } from '../../lib/events/sweep-outbox.ts'
import { tenantDb } from '../../lib/tenancy/tenant-db.ts'
import { startFakeInngest } from '../support/fake-inngest.ts'
import { createTestTenant, subscribeTo, type TestTenant } from '../support/fixtures.ts'
import { eventKinds } from '../../lib/events/event-kinds.ts'
import { stubEnv } from '../support/stub-env.ts'

// What the app hands to Inngest, captured by a listener on 127.0.0.1 set as the dev server
// (INNGEST_DEV=<url>): names, ids and envelopes; and what happens while it is down.

let inngest: Awaited<ReturnType<typeof startFakeInngest>>
let newsroom: TestTenant

beforeAll(async () => {
  inngest = await startFakeInngest()
  // Long enough that no write in a test retries the stopped queue: the tests check who tries it.
  stubEnv({ INNGEST_DEV: inngest.url, QUEUE_PAUSE_AFTER_FAILURE_MS: '600000' })
  newsroom = await createTestTenant()
  // Events go to the queue only when something would act on them: here a subscriber of every kind.
  await subscribeTo(newsroom, [...eventKinds])
})

afterAll(async () => {
  await inngest.stop()
  vi.unstubAllEnvs()
})

async function eventuallyRow(id: string, done: (row: { sentToQueueAt: Date | null; sendAttempts: number }) => boolean) {
  const deadline = Date.now() + 15_000
  for (;;) {
    const row = await db.event.findUniqueOrThrow({ where: { id } })
    if (done(row)) return row
    if (Date.now() > deadline) throw new Error(`Outbox row ${id} never reached the expected state: ${JSON.stringify(row)}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe('outbox → Inngest', () => {
  it('sends committed events right after the change, named by kind, with the outbox id and the envelope', async () => {
    const article = await createArticle(newsroom.actor('editor'), { headline: 'Harbour festival returns' })
    const row = await db.event.findFirstOrThrow({ where: { tenantId: newsroom.tenant.id, kind: 'article.created' }, orderBy: { createdAt: 'desc' } })
    const [sent] = await inngest.waitForEvents((event) => event.id === row.id)

    expect(sent).toMatchObject({
      id: row.id,
      name: 'newsroom/article.created',
      ts: row.occurredAt.getTime(),
      data: {
        event_id: row.id,
        event: 'article.created',
        tenant_id: newsroom.tenant.id,
        occurred_at: row.occurredAt.toISOString(),
        data: { article_id: article.id, headline: 'Harbour festival returns', status: 'draft' },
      },
    })
    // Marked sent once Inngest has taken it (off the response path, so possibly just after).
    expect((await eventuallyRow(row.id, (sentRow) => sentRow.sentToQueueAt !== null)).sentToQueueAt).toBeInstanceOf(Date)
  })

  it('sends the internal publish_scheduled event for scheduled publishing, and workflow events with their data', async () => {
    const editor = newsroom.actor('editor')
    const article = await createArticle(editor, { headline: 'Tomorrow’s front page', status: 'in-review' })
    await transitionArticle(editor, article.id, { to_state: 'approved' })
    const publishAt = new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d{3}Z$/, '.000Z')
    await transitionArticle(editor, article.id, { to_state: 'published', publish_at: publishAt })

    const [transitioned] = await inngest.waitForEvents((event) => event.name === 'newsroom/workflow.transitioned' && event.data.data.article_id === article.id)
    expect(transitioned!.data.data).toEqual({ article_id: article.id, from_state: 'in-review', to_state: 'approved', actor_id: newsroom.users.editor.id })
    const [scheduled] = await inngest.waitForEvents((event) => event.name === 'newsroom/article.publish_scheduled' && event.data.data.article_id === article.id)
    expect(scheduled!.data).toMatchObject({ event: 'article.publish_scheduled', tenant_id: newsroom.tenant.id, data: { article_id: article.id, publish_at: publishAt } })
    expect(scheduled!.id).toMatch(/^evt_/)
  })

  it('keeps events in the outbox while Inngest is down and sends them, deduplicable by id, once it is back', async () => {
    await inngest.stop()
    const before = inngest.events.length
    const [event] = await commitChange(tenantDb(newsroom.tenant.id), newsroom.tenant.id, (_tx, emit) =>
      emit([{ kind: 'article.updated', data: { article_id: 'art_offline', headline: 'Written while Inngest was down' } }]),
    )
    const failed = await eventuallyRow(event!.id, (row) => row.sendAttempts >= 1)
    expect(failed.sentToQueueAt).toBeNull()
    expect((await db.event.findUniqueOrThrow({ where: { id: event!.id } })).lastSendError).toMatch(/fetch failed|ECONNREFUSED/i)
    const offline = await sweepOutbox()
    expect(offline).toMatchObject({ remaining: true, error: expect.stringMatching(/Inngest refused or did not answer/) })
    expect(inngest.events.length).toBe(before)
    expect((await db.event.findUniqueOrThrow({ where: { id: event!.id } })).sentToQueueAt).toBeNull()

    await inngest.start()
    const swept = await sweepOutbox()
    expect(swept.sent).toBeGreaterThanOrEqual(1)
    expect(swept).toMatchObject({ remaining: false, error: null })
    const [resent] = await inngest.waitForEvents((captured) => captured.id === event!.id)
    expect(resent).toMatchObject({ name: 'newsroom/article.updated', data: { event_id: event!.id, data: { headline: 'Written while Inngest was down' } } })
    expect((await db.event.findUniqueOrThrow({ where: { id: event!.id } })).sentToQueueAt).toBeInstanceOf(Date)
    // Nothing unsent is left, so a second sweep sends nothing.
    expect(await sweepOutbox()).toEqual({ sent: 0, remaining: false, error: null })
  })

  it('does not make writes wait on an unreachable queue: after one failed send, writes leave their events to the sweeper', async () => {
    const editor = newsroom.actor('editor')
    await inngest.stop()
    try {
      const first = await createArticle(editor, { headline: 'Written as the queue went down' })
      const firstEvent = await db.event.findFirstOrThrow({ where: { tenantId: newsroom.tenant.id, kind: 'article.created', data: { path: ['article_id'], equals: first.id } } })
      await eventuallyRow(firstEvent.id, (row) => row.sendAttempts >= 1)

      const later = []
      for (let i = 0; i < 10; i++) later.push(await createArticle(editor, { headline: `Written while the queue is down ${i}` }))
      await queueHandOffSettled()
      const laterEvents = await db.event.findMany({ where: { tenantId: newsroom.tenant.id, kind: 'article.created', OR: later.map((article) => ({ data: { path: ['article_id'], equals: article.id } })) } })
      expect(laterEvents).toHaveLength(10)
      // Not one more attempt at the dead queue per write: each event waits, untried, for the sweeper.
      expect(laterEvents.map((event) => [event.sendAttempts, event.sentToQueueAt])).toEqual(laterEvents.map(() => [0, null]))
    } finally {
      await inngest.start()
    }

    expect(await sweepOutbox()).toMatchObject({ remaining: false, error: null })
    const untried = await db.event.count({ where: { tenantId: newsroom.tenant.id, sentToQueueAt: null } })
    expect(untried).toBe(0)
    // The sweeper's success reopens the direct path: the next write's event goes out at once.
    const next = await createArticle(editor, { headline: 'Written after the queue came back' })
    const [sent] = await inngest.waitForEvents((event) => event.name === 'newsroom/article.created' && event.data.data.article_id === next.id)
    expect(sent).toBeDefined()
  })

  it('tries the queue again by itself once the pause after a failure is over, without waiting for a sweep', async () => {
    const editor = newsroom.actor('editor')
    await inngest.stop()
    const lost = await createArticle(editor, { headline: 'Written as the queue went down again' })
    const lostEvent = await db.event.findFirstOrThrow({ where: { kind: 'article.created', data: { path: ['article_id'], equals: lost.id } } })
    await eventuallyRow(lostEvent.id, (row) => row.sendAttempts >= 1)
    await inngest.start()
    vi.stubEnv('QUEUE_PAUSE_AFTER_FAILURE_MS', '0')
    try {
      const next = await createArticle(editor, { headline: 'Written once the pause was over' })
      const [sent] = await inngest.waitForEvents((event) => event.name === 'newsroom/article.created' && event.data.data.article_id === next.id)
      expect(sent).toBeDefined()
      // The one that failed waits for the sweeper, as before.
      expect((await db.event.findUniqueOrThrow({ where: { id: lostEvent.id } })).sentToQueueAt).toBeNull()
    } finally {
      vi.stubEnv('QUEUE_PAUSE_AFTER_FAILURE_MS', '600000')
      await sweepOutbox()
    }
  })

  it('sends oldest first in bounded batches', async () => {
    const events = []
    for (let i = 0; i < 5; i++) {
      const [event] = await tenantDb(newsroom.tenant.id).$transaction((tx) => recordEvents(tx, newsroom.tenant.id, [{ kind: 'article.updated', data: { n: i } }]))
      events.push(event!)
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    const from = inngest.events.length
    const result = await sweepOutbox({ batchSize: 2, maxBatches: 2 })
    expect(result).toEqual({ sent: 4, remaining: true, error: null })
    expect(inngest.events.slice(from).map((event) => event.id)).toEqual(events.slice(0, 4).map((event) => event.id))
    expect(await sweepOutbox({ batchSize: 2 })).toEqual({ sent: 1, remaining: false, error: null })
  })

  it('lets an event nobody subscribed to leave the outbox without a send; a paused subscriber or a scheduled publication still gets it there', async () => {
    const quiet = await createTestTenant()
    const editor = quiet.actor('editor')
    const unwanted = await createArticle(editor, { headline: 'Nobody asked for this one', status: 'in-review' })
    await queueHandOffSettled()
    const created = await db.event.findFirstOrThrow({ where: { tenantId: quiet.tenant.id, kind: 'article.created' } })
    // Out of the outbox, so no backlog is reported for it, and never offered to the queue.
    expect((await eventuallyRow(created.id, (row) => row.sentToQueueAt !== null)).sendAttempts).toBe(0)
    expect(inngest.events.some((event) => event.id === created.id)).toBe(false)

    // The internal kind has a function of its own: it always goes.
    await transitionArticle(editor, unwanted.id, { to_state: 'approved' })
    await transitionArticle(editor, unwanted.id, { to_state: 'published', publish_at: new Date(Date.now() + 3_600_000).toISOString() })
    const [scheduled] = await inngest.waitForEvents((event) => event.name === 'newsroom/article.publish_scheduled' && event.data.data.article_id === unwanted.id)
    expect(scheduled).toBeDefined()
    // …while its article.updated and workflow.transitioned, wanted by nobody, do not.
    await queueHandOffSettled()
    const others = await db.event.findMany({ where: { tenantId: quiet.tenant.id, kind: { in: ['article.updated', 'workflow.transitioned'] } } })
    expect(others.length).toBeGreaterThanOrEqual(2)
    expect(inngest.events.filter((event) => others.some((row) => row.id === event.id))).toEqual([])

    // A paused subscription's deliveries are made (they wait for its resume), so its kind is sent.
    const subscription = await subscribeTo(quiet, ['article.updated'])
    await db.webhookSubscription.update({ where: { id: subscription }, data: { status: 'paused' } })
    const [updated] = await commitChange(tenantDb(quiet.tenant.id), quiet.tenant.id, (_tx, emit) => emit([{ kind: 'article.updated', data: { article_id: unwanted.id } }]))
    const [sent] = await inngest.waitForEvents((event) => event.id === updated!.id)
    expect(sent).toMatchObject({ name: 'newsroom/article.updated' })
    // And the sweeper applies the same rule to what it finds left behind.
    const [left] = await tenantDb(quiet.tenant.id).$transaction((tx) => recordEvents(tx, quiet.tenant.id, [{ kind: 'article.archived', data: { article_id: unwanted.id } }]))
    expect(await sweepOutbox()).toMatchObject({ remaining: false, error: null })
    expect((await db.event.findUniqueOrThrow({ where: { id: left!.id } })).sentToQueueAt).toBeInstanceOf(Date)
    expect(inngest.events.some((event) => event.id === left!.id)).toBe(false)
  })

  it('lets an event too large for Inngest travel without its data', async () => {
    const [event] = await commitChange(tenantDb(newsroom.tenant.id), newsroom.tenant.id, (_tx, emit) =>
      emit([{ kind: 'article.updated', data: { article_id: 'art_big', body: 'x'.repeat(300_000) } }]),
    )
    const [sent] = await inngest.waitForEvents((captured) => captured.id === event!.id)
    expect(sent!.data).toMatchObject({ event_id: event!.id, event: 'article.updated', data: null, data_omitted: true })
  })
})
