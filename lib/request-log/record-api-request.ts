import { logger } from '../ops/logger.ts'
import { processSingleton } from '../process-singleton.ts'
import { sqlPool } from '../db/client.ts'

export type ApiRequestEntry = {
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
  createdAt: Date
}

// Entries are written together, off the response path: one insert per batch instead of one per
// request. What was acknowledged but not yet flushed is lost if the process is killed (the log
// is a diagnostic, not a record of changes; articles and events commit with their requests).
const flushEveryMs = 1_000
const flushAtEntries = 500
// A database that stays away must not grow memory without bound: past this, entries are dropped.
const maxBufferedEntries = 20_000

// One statement per batch, its columns as eleven arrays that PostgreSQL unnests: Prisma's
// createMany spent about 140 µs of CPU per row binding 11 parameters each, and one JSON document
// per batch cost PostgreSQL more to decode than arrays do (psql, 20,000 rows: 161 ms for the
// decoding alone). At thousands of requests a second these inserts share the machine with the
// service (bench: the request-log row). Query keys stay JSON per row, being a list each. No ON
// CONFLICT: every id is new and no batch is written twice; the check cost a sixth of the insert.
const insertBatch = `
INSERT INTO api_requests (id, tenant_id, token_id, method, route, query_keys, status, problem_code, duration_ms, client_address, created_at)
SELECT id, tenant_id, token_id, method, route, ARRAY(SELECT json_array_elements_text(query_keys::json)), status, problem_code, round(duration_ms), client_address, created_at
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[], $8::text[], $9::float8[], $10::text[], $11::timestamptz[])
  AS entry(id, tenant_id, token_id, method, route, query_keys, status, problem_code, duration_ms, client_address, created_at)`

/** The batch as insertBatch's eleven column arrays, in its parameters' order. */
function columnsOf(batch: ApiRequestEntry[]): unknown[][] {
  return [
    batch.map((entry) => entry.id),
    batch.map((entry) => entry.tenantId),
    batch.map((entry) => entry.tokenId),
    batch.map((entry) => entry.method),
    batch.map((entry) => entry.route),
    batch.map((entry) => JSON.stringify(entry.queryKeys)),
    batch.map((entry) => entry.status),
    batch.map((entry) => entry.problemCode),
    batch.map((entry) => entry.durationMs),
    batch.map((entry) => entry.clientAddress),
    batch.map((entry) => entry.createdAt.toISOString()),
  ]
}

type Buffer = { entries: ApiRequestEntry[]; timer: NodeJS.Timeout | null; flushing: Promise<void> | null; dropped: number }

const buffer = processSingleton<Buffer>('request-log buffer', () => ({ entries: [], timer: null, flushing: null, dropped: 0 }))

export function requestLogEnabled(): boolean {
  return process.env.REQUEST_LOG !== 'off'
}

/** Queues one request for the log; never blocks or throws. */
export function recordApiRequest(entry: ApiRequestEntry): void {
  if (!requestLogEnabled()) return
  if (buffer.entries.length >= maxBufferedEntries) {
    buffer.dropped++
    return
  }
  buffer.entries.push(entry)
  if (buffer.entries.length >= flushAtEntries) void flushRequestLog()
  else if (!buffer.timer) {
    buffer.timer = setTimeout(() => void flushRequestLog(), flushEveryMs)
    buffer.timer.unref()
  }
}

/** Writes what is buffered now (the timer, a full buffer, shutdown and tests call it). */
export async function flushRequestLog(): Promise<void> {
  if (buffer.timer) clearTimeout(buffer.timer)
  buffer.timer = null
  while (buffer.flushing) await buffer.flushing
  const batch = buffer.entries.splice(0, buffer.entries.length)
  if (batch.length === 0) return
  buffer.flushing = sqlPool
    .query(insertBatch, columnsOf(batch))
    .then(() => undefined)
    .catch((error: Error) => logger.warn({ request_log: 'flush_failed', entries: batch.length, error: error.message }, 'request log entries not written'))
    .finally(() => {
      buffer.flushing = null
    })
  await buffer.flushing
  if (buffer.dropped > 0) {
    logger.warn({ request_log: 'dropped', entries: buffer.dropped }, 'request log entries dropped while the database was unreachable')
    buffer.dropped = 0
  }
}
