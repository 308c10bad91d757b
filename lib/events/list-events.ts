import { assertCan } from '../auth/permissions.ts'
import { NotFoundError } from '../errors.ts'
import { decodeNewestFirstCursor, encodeNewestFirstCursor, type NewestFirstPosition } from '../newest-first-cursor.ts'
import { filterFingerprint } from '../signed-cursor.ts'
import type { Actor } from '../tenancy/actor.ts'
import { tenantSql } from '../tenancy/tenant-sql.ts'
import { syncSettleMs } from '../time/sync-settle.ts'
import { eventEnvelope, type EventEnvelope } from './event-envelope.ts'
import { eventKinds } from './event-kinds.ts'
import type { ListEventsQuery } from './event-schemas.ts'
import { instantAtOrAfter } from '../instant-bound.ts'

/**
 * The events API: a newsroom's events as its webhooks carry them. Only the kinds a
 * subscription can ask for are shown: the service's own scheduling events and the test events
 * the portal sends to one receiver are not events of the newsroom.
 */
type EventRow = { id: string; tenant_id: string; kind: string; occurred_at: Date; data: unknown }

/** `tail`: the feed's last page, which grows as events pass the settle time; any other page changes only when events are added or pruned. */
export type EventsPage = { items: EventEnvelope[]; limit: number; nextCursor: string | null; tail: boolean }

function toEnvelope(row: EventRow): EventEnvelope {
  return eventEnvelope({ id: row.id, tenantId: row.tenant_id, kind: row.kind, occurredAt: row.occurred_at, data: row.data })
}

/**
 * A page of events in (occurred_at, id) order, newest first unless `sort=created_at`, read
 * along events_tenant_order_idx (or events_article_order_idx for one article) from the cursor's
 * position, so a deep page costs what the first does. No total: counting a busy newsroom's 30
 * days of events would cost more than the page.
 *
 * Oldest first is the feed a mirror follows, as articles' `sort=updated_at` is: it shows only
 * events older than the settle time (an event committed late, its occurred_at set before a
 * later one's commit, is never behind a cursor already handed out), and every page has a
 * next_cursor, an empty one the same position, so a client keeps the last and asks again later.
 */
const notSample = `NOT (data @> '{"test": true}')`

export async function listEvents(actor: Actor, query: ListEventsQuery): Promise<EventsPage> {
  return eventsPageReader(actor, query)()
}

/**
 * Checks the actor may read events and the cursor is this newsroom's and this filter's, then
 * gives what reads the page: a caller that keeps pages (the response cache) checks first and
 * reads only on a miss, so a cached page is never served to a request the read would refuse.
 */
export function eventsPageReader(actor: Actor, query: ListEventsQuery): () => Promise<EventsPage> {
  assertCan(actor, 'events:read')
  const { limit: _pageSize, cursor, ...filter } = query
  const bound = { tenantId: actor.tenant.id, list: 'events', filter: filterFingerprint(filter) }
  const after = cursor === undefined ? null : decodeNewestFirstCursor(cursor, bound)
  const ascending = query.sort === 'created_at'
  return () => readEventsPage(actor, query, bound, after, ascending)
}

async function readEventsPage(
  actor: Actor,
  query: ListEventsQuery,
  bound: { tenantId: string; list: string; filter: string },
  after: NewestFirstPosition | null,
  ascending: boolean,
): Promise<EventsPage> {
  const { limit } = query
  const values: unknown[] = []
  const bind = (value: unknown) => `$${values.push(value) + 1}`
  // A test's sample of a real kind (lib/webhooks/sample-events.ts) is no event of the newsroom.
  const clauses = ['tenant_id = $1', `kind = ANY(${bind(query.type ?? eventKinds)}::text[])`, notSample]
  if (query.article_id !== undefined) clauses.push(`(data->>'article_id') = ${bind(query.article_id)}`)
  if (query.created_after !== undefined) clauses.push(`occurred_at > ${bind(new Date(query.created_after))}`)
  if (query.created_before !== undefined) clauses.push(`occurred_at < ${bind(instantAtOrAfter(query.created_before))}`)
  if (ascending) clauses.push(`occurred_at < ${bind(new Date(Date.now() - syncSettleMs()))}`)
  if (after) clauses.push(`(occurred_at, id) ${ascending ? '>' : '<'} (${bind(new Date(after.key))}::timestamptz, ${bind(after.id)}::text)`)
  const direction = ascending ? 'ASC' : 'DESC'
  // One row more than the page shows: whether it exists says whether there is a next page.
  const rows = await tenantSql(actor.tenant.id).rows<EventRow>(
    `SELECT id, tenant_id, kind, occurred_at, data FROM events WHERE ${clauses.join(' AND ')}
     ORDER BY occurred_at ${direction}, id ${direction} LIMIT ${limit + 1}`,
    values,
  )
  const items = rows.slice(0, limit)
  const last = items.at(-1)
  let nextCursor: string | null = null
  if (last && (ascending || rows.length > limit)) nextCursor = encodeNewestFirstCursor(bound, { key: last.occurred_at.getTime(), id: last.id, offset: 0 })
  // An empty page of the feed: where it stands (the cursor's, or the start of the filter's range).
  else if (ascending) nextCursor = encodeNewestFirstCursor(bound, after ?? { key: query.created_after ? new Date(query.created_after).getTime() : 0, id: '', offset: 0 })
  // Oldest first, a page without the row after it ends at the settle time, which moves on.
  return { items: items.map(toEnvelope), limit, nextCursor, tail: ascending && rows.length <= limit }
}

/** One event of the newsroom, or a 404 (another newsroom's id looks exactly like a missing one). */
export async function getEvent(actor: Actor, eventId: string): Promise<EventEnvelope> {
  assertCan(actor, 'events:read')
  const [row] = await tenantSql(actor.tenant.id).rows<EventRow>(
    `SELECT id, tenant_id, kind, occurred_at, data FROM events WHERE tenant_id = $1 AND id = $2 AND kind = ANY($3::text[]) AND ${notSample}`,
    [eventId, eventKinds],
  )
  if (!row) throw new NotFoundError('event', eventId)
  return toEnvelope(row)
}
