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

// One statement and one parameter per batch, decoded by PostgreSQL: Prisma's createMany spent
// about 140 µs of CPU per row compiling and binding 11 parameters each (the bench's profile of
// get-by-id: a third of the service's CPU), which made a diagnostic the hot path's largest cost.
// The entries go as they are: JSON.stringify writes createdAt as ISO and the column list reads
// each field by its own name, so no second mapping of the row is needed.
const insertBatch = `
INSERT INTO api_requests (id, tenant_id, token_id, method, route, query_keys, status, problem_code, duration_ms, client_address, created_at)
SELECT id, "tenantId", "tokenId", method, route, ARRAY(SELECT json_array_elements_text("queryKeys")), status, "problemCode", round("durationMs"), "clientAddress", "createdAt"
FROM json_to_recordset($1::json) AS entry(id text, "tenantId" text, "tokenId" text, method text, route text, "queryKeys" json,
  status int, "problemCode" text, "durationMs" float8, "clientAddress" text, "createdAt" timestamptz)
ON CONFLICT (id) DO NOTHING`

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
    .query(insertBatch, [JSON.stringify(batch)])
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
