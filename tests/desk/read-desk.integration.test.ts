import { randomBytes } from 'node:crypto'
import { beforeAll, describe, expect, it } from 'vitest'
import { createArticle } from '../../lib/articles/create-article.ts'
import { listArticles } from '../../lib/articles/list-articles.ts'
import { listArticlesQuerySchema } from '../../lib/articles/article-schemas.ts'
import { transitionArticle } from '../../lib/articles/transition-article.ts'
import { db } from '../../lib/db/client.ts'
import { readDesk } from '../../lib/desk/read-desk.ts'
import { createId } from '../../lib/ids.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

let newsroom: TestTenant
let other: TestTenant
const member = (tenant: TestTenant, role: 'admin' | 'editor' | 'writer') => {
  const actor = tenant.actor(role)
  return { ...actor, user: actor.user! }
}
const ids = (items: { id: string }[]) => items.map((item) => item.id)

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

  it('gives an editor the review queue with the list’s own total, schedules due within 24 hours, and nothing of another newsroom', async () => {
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
    expect(ids(desk.upcoming!.items)).toEqual([soon.id])
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
})
