import { assertCan } from '../auth/permissions.ts'
import { isEventKind } from '../events/event-kinds.ts'
import type { Actor } from '../tenancy/actor.ts'
import { tenantDb } from '../tenancy/tenant-db.ts'
import { readSignedCursor, signCursor } from '../signed-cursor.ts'
import { factsFromEventData, passesFilter } from '../webhooks/subscription-filter.ts'

/** What a waiting event holds up once it is handed to the queue. */
export type WaitingEventPurpose =
  | { kind: 'deliveries'; subscriptions: { id: string; url: string }[] }
  | { kind: 'scheduled_publication'; publishAt: string | null }
  | { kind: 'cache_purge' }
  | { kind: 'nothing' }

export type WaitingEvent = {
  id: string
  kind: string
  createdAt: Date
  sendAttempts: number
  lastSendError: string | null
  article: { id: string; headline: string | null } | null
  purpose: WaitingEventPurpose
}

/**
 * One page of waiting events: `before` of them are older than this page, and `next` (or null on
 * the last page) asks for the page after it.
 */
export type WaitingEventsPage = { total: number; before: number; items: WaitingEvent[]; next: string | null }

/**
 * Where a page starts: after the event created at `createdAt` with this id. By value, not by
 * offset: events leave the list as the queue takes them, and a page asked for later then starts
 * where the one before it ended rather than skipping what moved up. Signed and bound to the
 * newsroom like the API's list cursors (signed-cursor.ts).
 */
type WaitingEventsCursor = { createdAt: Date; id: string }

type CursorPayload = { v: 1; t: string; l: 'waiting-events'; k: number; i: string }

const encodeCursor = (tenantId: string, { createdAt, id }: WaitingEventsCursor): string =>
  signCursor({ v: 1, t: tenantId, l: 'waiting-events', k: createdAt.getTime(), i: id } satisfies CursorPayload)

/** A page's `after`, or null when it is not one this list wrote for this newsroom (the page then starts at the oldest). */
function decodeCursor(tenantId: string, after: string): WaitingEventsCursor | null {
  try {
    const payload = readSignedCursor<CursorPayload>(after)
    const ours = payload.v === 1 && payload.t === tenantId && payload.l === 'waiting-events' && Number.isFinite(payload.k) && typeof payload.i === 'string'
    return ours ? { createdAt: new Date(payload.k), id: payload.i } : null
  } catch {
    return null
  }
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null)

/**
 * The newsroom's events not yet handed to the queue, oldest first (the order they go out in),
 * each with what it waits to do: which subscriptions it is for (those that asked for its kind,
 * existed when it happened, and whose filter its data passes), or which article's scheduled
 * publication. Deliveries themselves are made only when the event reaches the queue, so the
 * subscriptions here are the ones it will be delivered to as things stand.
 */
export async function listWaitingEvents(actor: Actor, { limit, after: cursor }: { limit: number; after?: string }): Promise<WaitingEventsPage> {
  assertCan(actor, 'webhooks:manage')
  const after = cursor ? decodeCursor(actor.tenant.id, cursor) : null
  const tdb = tenantDb(actor.tenant.id)
  const where = { sentToQueueAt: null }
  const newer = after ? { OR: [{ createdAt: { gt: after.createdAt } }, { createdAt: after.createdAt, id: { gt: after.id } }] } : {}
  const older = after ? { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lte: after.id } }] } : null
  const [page, total, before, subscriptions] = await Promise.all([
    // One more than the page holds: whether there is a next page, without counting the rest.
    tdb.event.findMany({ where: { ...where, ...newer }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], take: limit + 1 }),
    tdb.event.count({ where }),
    older ? tdb.event.count({ where: { ...where, ...older } }) : 0,
    tdb.webhookSubscription.findMany({
      where: { status: { in: ['enabled', 'paused'] } },
      select: { id: true, url: true, events: true, departmentIds: true, tags: true, statuses: true, createdAt: true },
    }),
  ])
  const rows = page.slice(0, limit)
  const articleIds = [...new Set(rows.map((row) => text((row.data as Record<string, unknown> | null)?.article_id)).filter((id): id is string => id !== null))]
  const headlines = new Map(
    (await tdb.article.findMany({ where: { id: { in: articleIds } }, select: { id: true, headline: true } })).map((article) => [article.id, article.headline]),
  )
  const items = rows.map((row): WaitingEvent => {
    const data = (row.data ?? {}) as Record<string, unknown>
    const articleId = text(data.article_id)
    let purpose: WaitingEventPurpose
    if (row.kind === 'article.publish_scheduled') purpose = { kind: 'scheduled_publication', publishAt: text(data.publish_at) }
    else if (row.kind === 'content.purge_requested') purpose = { kind: 'cache_purge' }
    else if (isEventKind(row.kind)) {
      const facts = factsFromEventData(row.kind, data)
      const receiving = subscriptions.filter(
        (subscription) => subscription.events.includes(row.kind) && subscription.createdAt <= row.createdAt && passesFilter(subscription, facts?.complete ? facts : null),
      )
      purpose = receiving.length > 0 ? { kind: 'deliveries', subscriptions: receiving.map(({ id, url }) => ({ id, url })) } : { kind: 'nothing' }
    } else purpose = { kind: 'nothing' }
    return {
      id: row.id,
      kind: row.kind,
      createdAt: row.createdAt,
      sendAttempts: row.sendAttempts,
      lastSendError: row.lastSendError,
      article: articleId ? { id: articleId, headline: headlines.get(articleId) ?? null } : null,
      purpose,
    }
  })
  const last = rows.at(-1)
  return { total, before, items, next: page.length > limit && last ? encodeCursor(actor.tenant.id, last) : null }
}

/** How many waiting events hold up webhook deliveries and how many scheduled publications. */
export async function waitingEventCounts(actor: Actor): Promise<{ scheduledPublications: number; other: number }> {
  assertCan(actor, 'webhooks:manage')
  const groups = await tenantDb(actor.tenant.id).event.groupBy({ by: ['kind'], where: { sentToQueueAt: null }, _count: { _all: true } })
  let scheduledPublications = 0
  let other = 0
  for (const group of groups) {
    if (group.kind === 'article.publish_scheduled') scheduledPublications += group._count._all
    else other += group._count._all
  }
  return { scheduledPublications, other }
}
