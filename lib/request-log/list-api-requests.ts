import { assertCan } from '../auth/permissions.ts'
import { timeOfId } from '../ids.ts'
import { newestFirstPage, type NewestFirstPosition } from '../newest-first-cursor.ts'
import type { Page } from '../pagination.ts'
import type { Actor } from '../tenancy/actor.ts'
import { tenantSql } from '../tenancy/tenant-sql.ts'
import { maxBatchSpanMs } from './record-api-request.ts'
import { fromStoredEntry, statusClassIndex, type ApiRequestEntry, type StoredEntry } from './request-log-entry.ts'
import { maxRequestLogOffset, type ApiRequestRecord, type ListApiRequestsQuery } from './request-log-schemas.ts'

// A request's id is made when it arrives, and its entry is kept under that time. Entries moved
// from the per-row log (the migration request_log_batches) are kept under the time they were
// answered less their duration, which can differ from their id's by a few milliseconds.
const lookupSlackMs = 1_000

// Batches read per step of a page's walk: few for a first page of a busy key, more each step
// when a filter matches little.
const firstStep = 20
const largestStep = 2_000

type Where = { clauses: string[]; values: unknown[] }

/**
 * The conditions on batches (b) that hold the query's entries, with their values after the
 * tenant's $1; null when no batch can (a request id that is not one of ours).
 */
function batchConditions(query: ListApiRequestsQuery): Where | null {
  const batches: Where = { clauses: ['b.tenant_id = $1'], values: [] }
  const bind = (value: unknown) => `$${batches.values.push(value) + 1}`
  if (query.token_id) batches.clauses.push(`b.token_id = ${bind(query.token_id)}`)
  if (query.request_id) {
    const arrivedAt = timeOfId(query.request_id, 'req')
    if (arrivedAt === null) return null
    const from = bind(new Date(arrivedAt - lookupSlackMs))
    const to = bind(new Date(arrivedAt + lookupSlackMs))
    batches.clauses.push(`b.last_at >= ${from}`, `b.first_at <= ${to}`, `b.last_at <= ${to}::timestamptz + interval '${maxBatchSpanMs} milliseconds'`)
  }
  // Only batches with a request of the status's class can hold it (404: a 4xx).
  if (query.status) batches.clauses.push(`${classCount(query.status)} > 0`)
  return batches
}

/** How many of a batch's requests are of the class of `status` (`404`, `4xx`). */
function classCount(status: string): string {
  return `b.class_counts[${statusClassIndex(Number(status[0]) * 100)! + 1}]`
}

// Ids compare byte by byte, as JavaScript compares them, whatever the database's collation.
const entryId = `(e.entry->>0) COLLATE "C"`

/** The conditions on entries (e.entry, a StoredEntry), their parameters numbered from firstParameter. */
function entryConditions(query: ListApiRequestsQuery, firstParameter: number): Where {
  const where: Where = { clauses: [], values: [] }
  const bind = (value: unknown) => `$${where.values.push(value) + firstParameter - 1}`
  if (query.request_id) where.clauses.push(`${entryId} = ${bind(query.request_id)}`)
  if (query.status && !query.status.endsWith('xx')) where.clauses.push(`(e.entry->>4)::int = ${bind(Number(query.status))}`)
  if (query.status?.endsWith('xx')) where.clauses.push(`(e.entry->>4)::int / 100 = ${bind(Number(query.status[0]))}`)
  return where
}

type BatchHead = { id: string; last_at: Date }

/**
 * The newest `count` entries matching the query, after `after` if given. Batches are walked
 * newest last_at first: every entry of a batch not yet read arrived no later than the last batch
 * read ended, so the walk stops once it holds `count` entries newer than that.
 */
async function newestEntries(tenantId: string, query: ListApiRequestsQuery, where: Where, count: number, after: NewestFirstPosition | null): Promise<ApiRequestEntry[]> {
  const sql = tenantSql(tenantId)
  const batchValues = [...where.values]
  const batchClauses = [...where.clauses]
  if (after) {
    // A batch holds entries before the position only if it began before it; none ends more than
    // maxBatchSpanMs after it began.
    const at = new Date(after.key)
    batchClauses.push(`b.first_at <= $${batchValues.push(at) + 1}`, `b.last_at <= $${batchValues.length + 1}::timestamptz + interval '${maxBatchSpanMs} milliseconds'`)
  }
  let collected: ApiRequestEntry[] = []
  let walkedTo: BatchHead | null = null
  for (let step = firstStep; ; step = Math.min(step * 2, largestStep)) {
    const values = [...batchValues]
    const clauses = [...batchClauses]
    if (walkedTo) {
      const at = `$${values.push(walkedTo.last_at) + 1}`
      clauses.push(`b.last_at <= ${at}`, `(b.last_at < ${at} OR b.id < $${values.push(walkedTo.id) + 1})`)
    }
    const heads = await sql.rows<BatchHead>(`SELECT b.id, b.last_at FROM api_request_batches b WHERE ${clauses.join(' AND ')} ORDER BY b.last_at DESC, b.id DESC LIMIT ${step}`, values)
    if (heads.length === 0) break

    const entryWhere = entryConditions(query, 3)
    const entryValues: unknown[] = [heads.map((head) => head.id), ...entryWhere.values]
    const entryClauses = [...entryWhere.clauses]
    if (after) {
      const key = `$${entryValues.push(after.key) + 1}`
      entryClauses.push(`((e.entry->>8)::bigint < ${key} OR ((e.entry->>8)::bigint = ${key} AND ${entryId} < $${entryValues.push(after.id) + 1}))`)
    }
    const rows = await withUnreadableEntries((entries) => sql.rows<{ tenant_id: string; token_id: string; entry: StoredEntry }>(
      `SELECT b.tenant_id, b.token_id, e.entry
       FROM api_request_batches b CROSS JOIN LATERAL ${entries} AS e(entry)
       WHERE b.tenant_id = $1 AND b.id = ANY($2::text[]) ${entryClauses.map((clause) => `AND ${clause}`).join(' ')}
       ORDER BY (e.entry->>8)::bigint DESC, ${entryId} DESC LIMIT ${count}`,
      entryValues,
    ))
    collected = [...collected, ...rows.map((row) => fromStoredEntry({ tenantId: row.tenant_id, tokenId: row.token_id }, row.entry))].sort(newestFirst).slice(0, count)

    walkedTo = heads.at(-1)!
    if (heads.length < step) break
    if (collected.length === count && collected.at(-1)!.createdAt > walkedTo.last_at) break
  }
  return collected
}

/**
 * A query over the batches' entries, taken apart as they are, and again with the repair below
 * only if PostgreSQL refuses one. A batch written before query keys were cut between whole
 * characters (request-log-entry.ts) may hold half an emoji, stored as a lone `\udXXX` escape:
 * PostgreSQL's json accepts it on insert and refuses to take it apart (22P02), so the
 * newsroom's whole log answered 500 (break53). The repair reads those escapes as U+FFFD
 * (JSON.stringify escapes nothing else that way; a typed backslash followed by `ud` and four hex
 * digits in the same batch would read as `\ufffd` too). Tried only after a refusal: reading
 * every batch's text to look for `\ud` first fetched each out of TOAST twice (break55).
 */
async function withUnreadableEntries<T>(query: (entries: string) => Promise<T>): Promise<T> {
  try {
    return await query('json_array_elements(b.entries)')
  } catch (error) {
    if ((error as { code?: string }).code !== '22P02') throw error
    return query(repairedEntries)
  }
}

const repairedEntries = `json_array_elements(CASE WHEN strpos(b.entries::text, '\\ud') > 0 THEN regexp_replace(b.entries::text, '\\\\ud[89a-f][0-9a-f]{2}', '\\\\ufffd', 'g')::json ELSE b.entries END)`

function newestFirst(a: ApiRequestEntry, b: ApiRequestEntry): number {
  return b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)
}

/** How many entries match the query: from the batches' counts unless a filter needs the entries. */
async function countEntries(tenantId: string, query: ListApiRequestsQuery, where: Where): Promise<number> {
  const sql = tenantSql(tenantId)
  const batchWhere = where.clauses.join(' AND ')
  const exactStatus = query.status !== undefined && !query.status.endsWith('xx')
  if (!query.request_id && !exactStatus) {
    const counted = query.status ? classCount(query.status) : 'b.entry_count'
    const [row] = await sql.rows<{ total: string | null }>(`SELECT sum(${counted}) AS total FROM api_request_batches b WHERE ${batchWhere}`, where.values)
    return Number(row?.total ?? 0)
  }
  const entryWhere = entryConditions(query, where.values.length + 2)
  const [row] = await withUnreadableEntries((entries) => sql.rows<{ total: string }>(
    `SELECT count(*) AS total FROM api_request_batches b CROSS JOIN LATERAL ${entries} AS e(entry)
     WHERE ${batchWhere} ${entryWhere.clauses.map((clause) => `AND ${clause}`).join(' ')}`,
    [...where.values, ...entryWhere.values],
  ))
  return Number(row!.total)
}

/** A newsroom's recorded /v1 requests, newest first, filtered by key, request id and status. */
export async function listApiRequests(actor: Actor, query: ListApiRequestsQuery): Promise<Page<ApiRequestEntry>> {
  assertCan(actor, 'admin')
  const tenantId = actor.tenant.id
  const where = batchConditions(query)
  const { limit: _limit, offset: _offset, cursor: _cursor, ...filter } = query
  const page = await newestFirstPage<ApiRequestEntry>({ tenantId, list: 'requests', filter }, query, (entry) => entry.createdAt.getTime(), async (after) => {
    const skipped = after ? 0 : query.offset
    if (!where) return [[], 0]
    const [entries, total] = await Promise.all([newestEntries(tenantId, query, where, skipped + query.limit, after), countEntries(tenantId, query, where)])
    return [entries.slice(skipped), total]
  })
  // Past the deepest offset a request may name, only the cursor goes on.
  return page.nextOffset !== null && page.nextOffset > maxRequestLogOffset ? { ...page, nextOffset: null } : page
}

export function toApiRequestRecord(entry: ApiRequestEntry): ApiRequestRecord {
  return {
    request_id: entry.id,
    token_id: entry.tokenId,
    method: entry.method,
    route: entry.route,
    query_keys: entry.queryKeys,
    status: entry.status,
    problem_code: entry.problemCode,
    duration_ms: entry.durationMs,
    client_address: entry.clientAddress,
    created_at: entry.createdAt.toISOString(),
  }
}
