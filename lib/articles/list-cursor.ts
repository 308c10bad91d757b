import { readSignedCursor, refuseCursor, signCursor } from '../signed-cursor.ts'

export type ListSort = 'published_at' | 'updated_at'

/** Where a page ended: the sort key of its last row, and how many rows came before the next one. */
export type ListPosition =
  | { sort: 'published_at'; publishedAt: Date | null; createdAt: Date; id: string; position: number }
  | { sort: 'updated_at'; changeXid: string; updatedAt: Date; id: string; position: number }

type Payload = {
  v: 1
  /** Tenant, sort and filters the cursor belongs to: another query's cursor is refused. */
  t: string
  s: ListSort
  f: string
  /** Sort key of the last row returned (epoch ms, or null for an unpublished article) and its id. */
  k: [number | null, number | null, string]
  /**
   * The changes feed's: the transaction of the last row's change (xid8, in decimal). Cursors the
   * settle-window feed issued have none and read as 0, where every article written before the
   * change_sequence migration stands, in their old (updated_at, id) order: they resume exactly.
   */
  x?: string
  o: number
}

export function encodeListCursor(tenantId: string, filter: string, at: ListPosition): string {
  if (at.sort === 'updated_at') return signCursor({ v: 1, t: tenantId, s: at.sort, f: filter, k: [at.updatedAt.getTime(), null, at.id], x: at.changeXid, o: at.position } satisfies Payload)
  return signCursor({ v: 1, t: tenantId, s: at.sort, f: filter, k: [at.publishedAt?.getTime() ?? null, at.createdAt.getTime(), at.id], o: at.position } satisfies Payload)
}

/** The position a cursor names, if it was made by this service for this tenant, sort and filters. */
export function decodeListCursor(cursor: string, expected: { tenantId: string; sort: ListSort; filter: string }): ListPosition {
  const decoded = readSignedCursor<Payload>(cursor)
  if (decoded.v !== 1 || decoded.t !== expected.tenantId) refuseCursor('cursor belongs to another newsroom or an older version of the API.')
  if (decoded.s !== expected.sort || decoded.f !== expected.filter) refuseCursor('cursor belongs to a list with other filters or another sort; send the same filters and sort as the request that returned it.')
  const [first, second, id] = decoded.k
  if (decoded.s === 'updated_at') {
    const changeXid = decoded.x ?? '0'
    if (!/^\d{1,20}$/.test(changeXid)) refuseCursor('cursor is not one this service made; use next_cursor from a list answer.')
    return { sort: 'updated_at', changeXid, updatedAt: new Date(first!), id, position: decoded.o }
  }
  return { sort: 'published_at', publishedAt: first === null ? null : new Date(first), createdAt: new Date(second!), id, position: decoded.o }
}
