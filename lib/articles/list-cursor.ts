import { createHash, createHmac, timingSafeEqual } from 'node:crypto'
import { ValidationError } from '../errors.ts'

export type ListSort = 'published_at' | 'updated_at'

/** Where a page ended: the sort key of its last row, and how many rows came before the next one. */
export type ListPosition =
  | { sort: 'published_at'; publishedAt: Date | null; createdAt: Date; id: string; position: number }
  | { sort: 'updated_at'; updatedAt: Date; id: string; position: number }

type Payload = {
  v: 1
  /** Tenant, sort and filters the cursor belongs to: another query's cursor is refused. */
  t: string
  s: ListSort
  f: string
  /** Sort key of the last row returned (epoch ms, or null for an unpublished article) and its id. */
  k: [number | null, number | null, string]
  o: number
}

// Cursors are signed so that a client can hold one but not make one up; the tenant and filters
// inside are checked too, so even a valid cursor of another query or newsroom is a 422.
function signingKey(): Buffer {
  return createHash('sha256')
    .update(`newsroom list cursor\0${process.env.CURSOR_SECRET ?? process.env.NEXTAUTH_SECRET ?? ''}`)
    .digest()
}

function signature(payload: string): string {
  return createHmac('sha256', signingKey()).update(payload).digest('base64url').slice(0, 22)
}

/** The filters of a list query in a stable form, to bind a cursor to them. */
export function filterFingerprint(filter: Record<string, unknown>): string {
  const stable = Object.keys(filter)
    .filter((key) => filter[key] !== undefined)
    .sort()
    .map((key) => [key, filter[key]])
  return createHash('sha256').update(JSON.stringify(stable)).digest('base64url').slice(0, 16)
}

export function encodeListCursor(tenantId: string, filter: string, at: ListPosition): string {
  const key: Payload['k'] = at.sort === 'updated_at' ? [at.updatedAt.getTime(), null, at.id] : [at.publishedAt?.getTime() ?? null, at.createdAt.getTime(), at.id]
  const payload = Buffer.from(JSON.stringify({ v: 1, t: tenantId, s: at.sort, f: filter, k: key, o: at.position } satisfies Payload)).toString('base64url')
  return `${payload}.${signature(payload)}`
}

function refuse(message: string): never {
  throw new ValidationError([{ field: 'cursor', message }])
}

/** The position a cursor names, if it was made by this service for this tenant, sort and filters. */
export function decodeListCursor(cursor: string, expected: { tenantId: string; sort: ListSort; filter: string }): ListPosition {
  const [payload, given, extra] = cursor.split('.')
  if (!payload || !given || extra !== undefined) refuse('cursor is not one this service made; use next_cursor from a list answer.')
  const wanted = Buffer.from(signature(payload))
  const got = Buffer.from(given)
  if (wanted.length !== got.length || !timingSafeEqual(wanted, got)) refuse('cursor is not one this service made; use next_cursor from a list answer.')
  let decoded: Payload
  try {
    decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Payload
  } catch {
    refuse('cursor is not one this service made; use next_cursor from a list answer.')
  }
  if (decoded.v !== 1 || decoded.t !== expected.tenantId) refuse('cursor belongs to another newsroom or an older version of the API.')
  if (decoded.s !== expected.sort || decoded.f !== expected.filter) refuse('cursor belongs to a list with other filters or another sort; send the same filters and sort as the request that returned it.')
  const [first, second, id] = decoded.k
  if (decoded.s === 'updated_at') return { sort: 'updated_at', updatedAt: new Date(first!), id, position: decoded.o }
  return { sort: 'published_at', publishedAt: first === null ? null : new Date(first), createdAt: new Date(second!), id, position: decoded.o }
}
