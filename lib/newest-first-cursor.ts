import { ValidationError } from './errors.ts'
import { filterFingerprint, readSignedCursor, refuseCursor, signCursor } from './signed-cursor.ts'
import { toPage, type Page } from './pagination.ts'

/**
 * Cursors for the lists kept newest first (webhook subscriptions, deliveries, the request log,
 * revisions): the position after the last row of a page, as its sort key (a time in ms, or a
 * version) and id. Signed, and bound to the tenant, the list and its filters, so a client can
 * hold one but not make one up, and another list's or newsroom's cursor is a 422. A page found
 * by cursor costs what the first page costs: the rows after the key, from the list's index.
 */
export type NewestFirstPosition = { key: number; id: string; offset: number }

type Payload = { v: 1; t: string; l: string; f: string; k: number; i: string; o: number }

export function encodeNewestFirstCursor(scope: { tenantId: string; list: string; filter: string }, at: NewestFirstPosition): string {
  return signCursor({ v: 1, t: scope.tenantId, l: scope.list, f: scope.filter, k: at.key, i: at.id, o: at.offset } satisfies Payload)
}

export function decodeNewestFirstCursor(cursor: string, expected: { tenantId: string; list: string; filter: string }): NewestFirstPosition {
  const decoded = readSignedCursor<Payload>(cursor)
  if (decoded.v !== 1 || decoded.t !== expected.tenantId) refuseCursor('cursor belongs to another newsroom or an older version of the API.')
  if (decoded.l !== expected.list || decoded.f !== expected.filter) refuseCursor('cursor belongs to another list or other filters; send the same filters as the request that returned it.')
  return { key: decoded.k, id: decoded.i, offset: decoded.o }
}

/**
 * Reads a newest-first page by offset or by cursor (not both), and answers it with its
 * next_cursor. `read` gets the position to start after (or null for the offset's page) and
 * returns the page's rows and the list's total; `keyOf` gives a row's sort key.
 */
export async function newestFirstPage<Row extends { id: string }>(
  scope: { tenantId: string; list: string; filter: Record<string, unknown> },
  query: { limit: number; offset: number; cursor?: string },
  keyOf: (row: Row) => number,
  read: (after: NewestFirstPosition | null) => Promise<[Row[], number]>,
): Promise<Page<Row>> {
  const bound = { tenantId: scope.tenantId, list: scope.list, filter: filterFingerprint(scope.filter) }
  const after = query.cursor === undefined ? null : decodeNewestFirstCursor(query.cursor, bound)
  if (after && query.offset > 0) throw new ValidationError([{ field: 'offset', message: 'Send either offset or cursor, not both: the cursor already says where the page starts.' }])
  const [rows, total] = await read(after)
  const offset = after ? after.offset : query.offset
  const page = toPage(rows, total, { limit: query.limit, offset })
  const last = rows.at(-1)
  const nextCursor = last && rows.length === query.limit && page.nextOffset !== null ? encodeNewestFirstCursor(bound, { key: keyOf(last), id: last.id, offset: offset + rows.length }) : null
  return { ...page, nextCursor }
}
