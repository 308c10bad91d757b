import { randomBytes } from 'node:crypto'
import { beforeAll, describe, expect, it } from 'vitest'
import { createArticle } from '../../lib/articles/create-article.ts'
import { listArticles } from '../../lib/articles/list-articles.ts'
import { listArticlesQuerySchema } from '../../lib/articles/article-schemas.ts'
import { transitionArticle } from '../../lib/articles/transition-article.ts'
import { db } from '../../lib/db/client.ts'
import { readDesk } from '../../lib/desk/read-desk.ts'
import { listWaitingEvents } from '../../lib/ops/waiting-events.ts'
import { createId } from '../../lib/ids.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

let newsroom: TestTenant
let other: TestTenant
const member = (tenant: TestTenant, role: 'admin' | 'editor' | 'writer') => {
  const actor = tenant.actor(role)
  return { ...actor, user: actor.user! }
}
const ids = (items: { id: string }[]) => items.map((item) => item.id)
const newsroomActor = (tenant: TestTenant) => tenant.actor('admin')

beforeAll(async () => {
  newsroom = await createTestTenant()
  other = await createTestTenant()
})

describe('readDesk', () => {
  it('shows a writer their drafts and what came back from review, and no editor or admin sections', async () => {
    const writer = member(newsroom, 'writer')
    const stays = await createArticle(writer, { headline: 'Still drafting' })
    const returned = await createArticle(writer, { headline: 'Sent back', status: 'in-review' })
    await transitionArticle(member(newsroom, 'editor'), returned.id, { to_state: 'draft' })
    const resubmitted = await createArticle(writer, { headline: 'Sent back, then resubmitted', status: 'in-review' })
    await transitionArticle(member(newsroom, 'editor'), resubmitted.id, { to_state: 'draft' })
    await transitionArticle(writer, resubmitted.id, { to_state: 'in-review' })

    const desk = await readDesk(writer)
    expect(ids(desk.drafts.items)).toEqual(expect.arrayContaining([stays.id, returned.id]))
    expect(ids(desk.returned.items)).toEqual([returned.id])
    expect(desk.review).toBeUndefined()
    expect(desk.upcoming).toBeUndefined()
    expect(desk.attention).toBeUndefined()
  })

  it('lists each article sent back once (from review or after approval), the latest first, and none of another author’s', async () => {
    const writer = member(newsroom, 'writer')
    const editor = member(newsroom, 'editor')
    const sentBackTwice = await createArticle(writer, { headline: 'Sent back twice', status: 'in-review' })
    await transitionArticle(editor, sentBackTwice.id, { to_state: 'draft', note: 'First: the quote needs a source.' })
    const sentBackOnce = await createArticle(writer, { headline: 'Sent back once', status: 'in-review' })
    await transitionArticle(editor, sentBackOnce.id, { to_state: 'draft', note: 'Cut it to 600 words.' })
    await transitionArticle(writer, sentBackTwice.id, { to_state: 'in-review' })
    await transitionArticle(editor, sentBackTwice.id, { to_state: 'draft', note: 'Second: still no source.' })
    // Approved but not yet live, then sent back: as much the author's to act on.
    const sentBackApproved = await createArticle(writer, { headline: 'Sent back after approval', status: 'in-review' })
    await transitionArticle(editor, sentBackApproved.id, { to_state: 'approved' })
    await transitionArticle(editor, sentBackApproved.id, { to_state: 'draft', note: 'Legal wants another look.' })
    const editorsOwn = await createArticle(editor, { headline: 'The editor’s own, sent back', status: 'in-review' })
    await transitionArticle(member(newsroom, 'admin'), editorsOwn.id, { to_state: 'draft' })

    const returned = (await readDesk(writer)).returned.items.filter((item) => [sentBackTwice.id, sentBackOnce.id, sentBackApproved.id, editorsOwn.id].includes(item.id))
    expect(returned.map((item) => [item.headline, item.returnNote])).toEqual([
      ['Sent back after approval', 'Legal wants another look.'],
      ['Sent back twice', 'Second: still no source.'],
      ['Sent back once', 'Cut it to 600 words.'],
    ])
    expect(ids((await readDesk(editor)).returned.items)).toContain(editorsOwn.id)
  })

  it('gives an editor the review queue with the list’s own total, the schedules no queue will run, and nothing of another newsroom', async () => {
    const editor = member(newsroom, 'editor')
    const waiting = await createArticle(member(newsroom, 'writer'), { headline: 'Waiting for a decision', status: 'in-review' })
    await createArticle(member(other, 'writer'), { headline: 'Another newsroom’s review', status: 'in-review' })
    const soon = await createArticle(editor, { headline: 'Goes live soon', status: 'in-review' })
    await transitionArticle(editor, soon.id, { to_state: 'approved' })
    const now = new Date()
    await transitionArticle(editor, soon.id, { to_state: 'published', publish_at: new Date(now.getTime() + 3_600_000).toISOString() })
    const later = await createArticle(editor, { headline: 'Goes live in two days', status: 'in-review' })
    await transitionArticle(editor, later.id, { to_state: 'approved' })
    await transitionArticle(editor, later.id, { to_state: 'published', publish_at: new Date(now.getTime() + 48 * 3_600_000).toISOString() })

    const desk = await readDesk(editor, now)
    const list = await listArticles(newsroom.actor('editor'), listArticlesQuerySchema.parse({ status: 'in-review' }))
    expect(desk.review!.total).toBe(list.total)
    expect(ids(desk.review!.items)).toContain(waiting.id)
    expect(desk.review!.items.every((article) => article.tenantId === newsroom.tenant.id)).toBe(true)
    // No event queue runs in these tests: scheduled publications will not go live by themselves
    // (scheduled-publication-outlook.integration.test.ts has the desk with a queue that runs them).
    expect(ids(desk.willNotGoLive!.items)).toEqual(expect.arrayContaining([soon.id, later.id]))
    expect(desk.upcoming!.items).toEqual([])
    expect(desk.attention).toBeUndefined()
  })

  it('tells an admin about disabled or failing subscriptions (not healthy ones) and about keys whose owner left or that are due for rotation', async () => {
    const admin = member(newsroom, 'admin')
    await newsroom.token(['articles:read'], 'admin')
    const departing = await db.user.create({
      data: { id: createId('usr'), tenantId: newsroom.tenant.id, email: `leaving-${createId('usr').slice(-6)}@example.test`, name: 'Leaving', role: 'editor', passwordHash: 'x' },
    })
    const orphaned = await db.apiToken.create({
      data: { id: createId('tok'), tenantId: newsroom.tenant.id, name: 'orphaned', prefix: 'nrs_orph', tokenHash: randomBytes(32).toString('hex'), scopes: ['articles:read'], ownerId: departing.id },
    })
    await db.user.update({ where: { id: departing.id }, data: { active: false, deactivatedAt: new Date() } })
    const old = await db.apiToken.create({
      data: { id: createId('tok'), tenantId: newsroom.tenant.id, name: 'old', prefix: 'nrs_old0', tokenHash: randomBytes(32).toString('hex'), scopes: ['articles:read'], ownerId: newsroom.users.admin.id, createdAt: new Date(Date.now() - 120 * 86_400_000) },
    })
    const disabled = await db.webhookSubscription.create({
      data: { id: createId('whk'), tenantId: newsroom.tenant.id, url: 'https://receiver.example/hook', events: ['article.published'], secretEncrypted: 'x', ownerId: newsroom.users.admin.id, status: 'disabled', disabledAt: new Date() },
    })
    // Enabled, but its last attempt failed: failing. One whose last attempt succeeded is fine.
    const failing = await db.webhookSubscription.create({
      data: { id: createId('whk'), tenantId: newsroom.tenant.id, url: 'https://receiver.example/failing', events: ['article.published'], secretEncrypted: 'x', ownerId: newsroom.users.admin.id },
    })
    const healthy = await db.webhookSubscription.create({
      data: { id: createId('whk'), tenantId: newsroom.tenant.id, url: 'https://receiver.example/healthy', events: ['article.published'], secretEncrypted: 'x', ownerId: newsroom.users.admin.id },
    })
    const event = await db.event.create({ data: { id: createId('evt'), tenantId: newsroom.tenant.id, kind: 'article.published', occurredAt: new Date(), data: {} } })
    for (const [subscription, responseStatus] of [[failing, 500], [healthy, 204]] as const) {
      const delivery = await db.delivery.create({ data: { id: createId('dlv'), tenantId: newsroom.tenant.id, eventId: event.id, subscriptionId: subscription.id } })
      await db.deliveryAttempt.create({ data: { id: createId('att'), deliveryId: delivery.id, attempt: 1, at: new Date(), responseStatus, durationMs: 12 } })
    }
    await db.webhookSubscription.create({
      data: { id: createId('whk'), tenantId: other.tenant.id, url: 'https://other.example/hook', events: ['article.published'], secretEncrypted: 'x', ownerId: other.users.admin.id, status: 'disabled' },
    })

    const desk = await readDesk(admin)
    expect(desk.attention!.webhooks.map(({ subscription, reason }) => [subscription.id, reason]).sort()).toEqual(
      [
        [disabled.id, 'disabled'],
        [failing.id, 'failing'],
      ].sort(),
    )
    expect(desk.attention!.keys.map(({ key, reason }) => [key.id, reason]).sort()).toEqual(
      [
        [orphaned.id, 'owner_inactive'],
        [old.id, 'rotation_due'],
      ].sort(),
    )
    expect(desk.review).toBeDefined()
  })

  it('shows a writer their own articles in review, not other writers’', async () => {
    const tenant = await createTestTenant()
    const writer = member(tenant, 'writer')
    const mine = await createArticle(writer, { headline: 'Mine, in review', status: 'in-review' })
    await createArticle(writer, { headline: 'Mine, still a draft' })
    await createArticle(member(tenant, 'editor'), { headline: 'Someone else’s, in review', status: 'in-review' })
    const desk = await readDesk(writer)
    expect(ids(desk.inReview!.items)).toEqual([mine.id])
    expect(desk.inReview!.total).toBe(1)
    expect(desk.overdue).toBeUndefined()
    expect((await readDesk(member(tenant, 'editor'))).inReview).toBeUndefined()
  })

  it('puts a schedule whose time passed under overdue with why, never under going live soon', async () => {
    const tenant = await createTestTenant()
    const editor = member(tenant, 'editor')
    const now = new Date()
    const article = await createArticle(editor, { headline: 'Was due at 22:45', status: 'in-review' })
    await transitionArticle(editor, article.id, { to_state: 'approved' })
    await transitionArticle(editor, article.id, { to_state: 'published', publish_at: new Date(now.getTime() + 3_600_000).toISOString() })
    await db.article.update({ where: { id: article.id }, data: { scheduledPublishAt: new Date(now.getTime() - 5 * 60_000) } })

    const desk = await readDesk(editor, now)
    expect(ids(desk.overdue!.items)).toEqual([article.id])
    expect(desk.overdue!.total).toBe(1)
    expect(desk.overdue!.reason).toMatch(/No event queue \(Inngest\) is configured, so scheduled publications do not run\. Publish it now, or reschedule/)
    expect(desk.upcoming!.items).toEqual([])
  })

  it('tells an admin how many events wait, since when, what they hold up, and lists each with whom it is for', async () => {
    const tenant = await createTestTenant()
    const admin = member(tenant, 'admin')
    const subscription = await db.webhookSubscription.create({
      data: { id: createId('whk'), tenantId: tenant.tenant.id, url: 'https://receiver.example/published', events: ['article.published'], secretEncrypted: 'x', ownerId: tenant.users.admin.id, createdAt: new Date(Date.now() - 86_400_000) },
    })
    const article = await createArticle(admin, { headline: 'Waiting to go out' })
    // Only what this test writes counts: the article's own creation event may be waiting too.
    await db.event.updateMany({ where: { tenantId: tenant.tenant.id }, data: { sentToQueueAt: new Date() } })
    const old = new Date(Date.now() - 30 * 60_000)
    await db.event.createMany({
      data: [
        { id: createId('evt'), tenantId: tenant.tenant.id, kind: 'article.published', occurredAt: old, createdAt: old, data: { article_id: article.id, status: 'published', tags: [], department_id: null } },
        { id: createId('evt'), tenantId: tenant.tenant.id, kind: 'article.publish_scheduled', occurredAt: new Date(), data: { article_id: article.id, publish_at: new Date().toISOString() } },
      ],
    })

    const { backlog } = (await readDesk(admin)).attention!
    expect(backlog).toMatchObject({ waiting: 2, scheduledPublications: 1, otherEvents: 1, queue: 'not_configured' })
    expect(backlog.oldestWaitingSeconds).toBeGreaterThanOrEqual(30 * 60)

    const waiting = await listWaitingEvents(newsroomActor(tenant), { limit: 100 })
    expect(waiting.total).toBe(2)
    expect(waiting.items.map((event) => [event.kind, event.article?.headline, event.purpose])).toEqual([
      ['article.published', 'Waiting to go out', { kind: 'deliveries', subscriptions: [{ id: subscription.id, url: subscription.url }] }],
      ['article.publish_scheduled', 'Waiting to go out', { kind: 'scheduled_publication', publishAt: expect.any(String) }],
    ])
    await expect(listWaitingEvents(tenant.actor('editor'), { limit: 100 })).rejects.toThrow()
  })

  it('pages through waiting events oldest first, and a page asked for after the queue took some starts where the last one ended', async () => {
    const tenant = await createTestTenant()
    await db.event.updateMany({ where: { tenantId: tenant.tenant.id }, data: { sentToQueueAt: new Date() } })
    const start = Date.now() - 60 * 60_000
    const eventIds = Array.from({ length: 5 }, (_, index) => createId('evt', start + index * 1_000))
    // Two share a moment: the id breaks the tie, so neither is shown twice or skipped.
    const at = [0, 1, 1, 2, 3].map((step) => new Date(start + step * 60_000))
    await db.event.createMany({ data: eventIds.map((id, index) => ({ id, tenantId: tenant.tenant.id, kind: 'webhook.test', occurredAt: at[index]!, createdAt: at[index]!, data: {} })) })
    const admin = newsroomActor(tenant)

    const first = await listWaitingEvents(admin, { limit: 2 })
    expect(first).toMatchObject({ total: 5, before: 0, items: [{ id: eventIds[0] }, { id: eventIds[1] }] })
    // The queue takes the two oldest before the admin asks for the next page.
    await db.event.updateMany({ where: { id: { in: eventIds.slice(0, 2) } }, data: { sentToQueueAt: new Date() } })
    const second = await listWaitingEvents(admin, { limit: 2, after: first.next! })
    expect(second).toMatchObject({ total: 3, before: 0, items: [{ id: eventIds[2] }, { id: eventIds[3] }] })
    const last = await listWaitingEvents(admin, { limit: 2, after: second.next! })
    expect(last).toMatchObject({ total: 3, before: 2, items: [{ id: eventIds[4] }], next: null })

    // A cursor this list did not sign for this newsroom starts at the oldest: made up, or another newsroom's.
    const oldest = { before: 0, items: [{ id: eventIds[2] }, { id: eventIds[3] }] }
    expect(await listWaitingEvents(admin, { limit: 2, after: 'junk' })).toMatchObject(oldest)
    expect(await listWaitingEvents(admin, { limit: 2, after: `${Buffer.from(JSON.stringify({ v: 1, t: tenant.tenant.id, l: 'waiting-events', k: Date.now(), i: 'evt_x' })).toString('base64url')}.forged` })).toMatchObject(oldest)
    const elsewhere = await createTestTenant()
    // Its cursor points between this newsroom's third and fourth events: read here, it would skip the third.
    const between = start + 150_000
    await db.event.updateMany({ where: { tenantId: elsewhere.tenant.id }, data: { sentToQueueAt: new Date() } })
    await db.event.createMany({ data: [0, 1].map((index) => ({ id: createId('evt', between + index), tenantId: elsewhere.tenant.id, kind: 'webhook.test', occurredAt: new Date(between + index), createdAt: new Date(between + index), data: {} })) })
    const theirs = await listWaitingEvents(newsroomActor(elsewhere), { limit: 1 })
    expect(await listWaitingEvents(admin, { limit: 2, after: theirs.next! })).toMatchObject(oldest)
  })

  it('says a failed test delivery is not retried, and when a failed event delivery is tried next', async () => {
    const tenant = await createTestTenant()
    const make = (url: string) =>
      db.webhookSubscription.create({ data: { id: createId('whk'), tenantId: tenant.tenant.id, url, events: ['article.published'], secretEncrypted: 'x', ownerId: tenant.users.admin.id } })
    const tested = await make('https://receiver.example/tested')
    const retrying = await make('https://receiver.example/retrying')
    const next = new Date(Date.now() + 5 * 60_000)
    for (const [subscription, kind, nextAttemptAt] of [[tested, 'webhook.test', null], [retrying, 'article.published', next]] as const) {
      const event = await db.event.create({ data: { id: createId('evt'), tenantId: tenant.tenant.id, kind, occurredAt: new Date(), data: {}, sentToQueueAt: new Date() } })
      const delivery = await db.delivery.create({ data: { id: createId('dlv'), tenantId: tenant.tenant.id, eventId: event.id, subscriptionId: subscription.id, nextAttemptAt } })
      await db.deliveryAttempt.create({ data: { id: createId('att'), deliveryId: delivery.id, attempt: 1, at: new Date(), responseStatus: 500, durationMs: 12 } })
    }
    const webhooks = (await readDesk(member(tenant, 'admin'))).attention!.webhooks
    const byId = new Map(webhooks.map((webhook) => [webhook.subscription.id, webhook]))
    expect(byId.get(tested.id)).toMatchObject({ reason: 'failing', lastDelivery: { test: true, nextAttemptAt: null } })
    expect(byId.get(retrying.id)).toMatchObject({ reason: 'failing', lastDelivery: { test: false, nextAttemptAt: next } })
  })
})
