import { nativeDate } from '../native-date.ts'
import { clientAddress } from '../security/client-address.ts'

/** One /v1 request made with an API key, as the request log keeps it. */
export type ApiRequestEntry = {
  /** The request id (X-Request-Id), made when the request arrived: createId('req', createdAt). */
  id: string
  tenantId: string
  tokenId: string
  method: string
  route: string
  queryKeys: string[]
  status: number
  problemCode: string | null
  durationMs: number
  clientAddress: string | null
  /** When the request arrived. */
  createdAt: Date
}

/**
 * An entry as stored in a batch's `entries` (a JSON array of these): an array rather than an
 * object, since the names would double every entry's size. The batch holds the newsroom and the
 * key. The SQL that reads entries (list-api-requests.ts) names the same positions.
 */
export type StoredEntry = [
  id: string,
  method: string,
  route: string,
  queryKeys: string[],
  status: number,
  problemCode: string | null,
  durationMs: number,
  clientAddress: string | null,
  createdAtMs: number,
]

export function toStoredEntry(entry: ApiRequestEntry): StoredEntry {
  return [entry.id, entry.method, entry.route, entry.queryKeys, entry.status, entry.problemCode, Math.round(entry.durationMs), entry.clientAddress, entry.createdAt.getTime()]
}

export function fromStoredEntry(batch: { tenantId: string; tokenId: string }, stored: StoredEntry): ApiRequestEntry {
  const [id, method, route, queryKeys, status, problemCode, durationMs, clientAddress, createdAtMs] = stored
  return { id, tenantId: batch.tenantId, tokenId: batch.tokenId, method, route, queryKeys, status, problemCode, durationMs, clientAddress, createdAt: new Date(createdAtMs) }
}

/** Where a status's class is counted in a batch's class_counts (1xx first); null outside 100-599. */
export function statusClassIndex(status: number): number | null {
  const statusClass = Math.floor(status / 100)
  return statusClass >= 1 && statusClass <= 5 ? statusClass - 1 : null
}

/** What with-api knows of an answered request that the log keeps. */
export type AnsweredRequest = {
  id: string
  tenantId: string
  tokenId: string
  method: string
  route: string
  url: URL
  forwardedFor: string | null
  status: number
  problemCode: string | null
  durationMs: number
  arrivedAt: number
}

/** The log's entry for an answered request: the names of its query parameters, never their values (those may carry secrets). */
export function apiRequestEntry(request: AnsweredRequest): ApiRequestEntry {
  // Field by field: a rest and spread of the request cost about 4 µs per entry (under tsx), this 0.4.
  return {
    id: request.id,
    tenantId: request.tenantId,
    tokenId: request.tokenId,
    method: request.method,
    route: request.route,
    queryKeys: queryKeys(request.url),
    status: request.status,
    problemCode: request.problemCode,
    durationMs: Math.round(request.durationMs),
    clientAddress: clientAddress(request.forwardedFor),
    // The runtime's own Date, not Next's wrapper of it (lib/native-date.ts): made for every
    // request a key makes, through the wrapper it was ~2 % of a cached GET's CPU (issue 50).
    createdAt: new (nativeDate())(request.arrivedAt),
  }
}

/** Query parameter names, at most 20 of at most 64 characters each, sorted. */
function queryKeys(url: URL): string[] {
  if (!url.search) return []
  return [...new Set(url.searchParams.keys())].slice(0, 20).map(cutKey).sort()
}

// Never between the two halves of a character outside the BMP (an emoji): the half left alone
// is stored as a lone surrogate, which PostgreSQL's json accepts and then refuses to read, so
// the newsroom's whole request log answered 500 (break53).
function cutKey(key: string): string {
  if (key.length <= 64) return key
  const last = key.charCodeAt(63)
  return key.slice(0, last >= 0xd800 && last <= 0xdbff ? 63 : 64)
}
