import type { QueryConfig } from 'pg'
import { createId } from '../ids.ts'
import { logger } from '../ops/logger.ts'
import { processSingleton } from '../process-singleton.ts'
import { sqlPool } from '../db/client.ts'
import { statusClassIndex, toStoredEntry, type ApiRequestEntry } from './request-log-entry.ts'

export type { ApiRequestEntry } from './request-log-entry.ts'

// Entries are written together, off the response path: one row per key per write instead of one
// per request (see the migration request_log_batches). What was acknowledged but not yet written
// is lost if the process is killed (the log is a diagnostic, not a record of changes; articles
// and events commit with their requests).
const flushEveryMs = 1_000
// Each write is a transaction, and each commit a WAL flush: a busy server writes a few times a
// second, not at every 500 requests (20 commits a second at 10,000 req/s).
const flushAtEntries = 5_000
// A batch row holds at most this many entries: a page or a lookup parses whole batches.
export const maxEntriesPerBatch = 500
// A database that stays away must not grow memory without bound: past this, entries are dropped.
const maxBufferedEntries = 20_000
// Rows per INSERT, well inside PostgreSQL's 65,535 parameters (eight each).
const batchesPerStatement = 1_000

// PostgreSQL's text cannot hold NUL, which a query key can decode to (`?%00=`): stored as is, it
// would fail its whole batch, other newsrooms' entries included. Removed once, when recorded.
// (A lone surrogate cannot arrive: URLs decode bytes as UTF-8 with replacement, headers are bytes.)
const withoutNul = (text: string) => (text.includes('\0') ? text.replaceAll('\0', '') : text)

function storable(entry: ApiRequestEntry): ApiRequestEntry {
  const { route, queryKeys, clientAddress } = entry
  if (!route.includes('\0') && !clientAddress?.includes('\0') && !queryKeys.some((key) => key.includes('\0'))) return entry
  return { ...entry, route: withoutNul(route), queryKeys: queryKeys.map(withoutNul), clientAddress: clientAddress && withoutNul(clientAddress) }
}

type BatchRow = [id: string, tenantId: string, tokenId: string, firstAt: Date, lastAt: Date, entryCount: number, classCounts: number[], entries: string]

/**
 * The longest a batch spans, from its first request's arrival to its last's. Entries kept while
 * the database was away may span more; they are split, so a reader looking for the entries
 * around a moment reads only batches that end within this of it (list-api-requests.ts).
 */
export const maxBatchSpanMs = 60_000

/** The buffered entries as batch rows: one per key, or more when they span more than maxBatchSpanMs or number more than maxEntriesPerBatch. */
function batchRows(entries: ApiRequestEntry[]): BatchRow[] {
  const byKey = new Map<string, ApiRequestEntry[]>()
  for (const entry of entries) {
    const key = `${entry.tenantId} ${entry.tokenId}`
    const same = byKey.get(key)
    if (same) same.push(entry)
    else byKey.set(key, [entry])
  }
  const rows: BatchRow[] = []
  for (const group of byKey.values()) {
    group.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
    let from = 0
    for (let index = 1; index <= group.length; index++) {
      if (index < group.length && index - from < maxEntriesPerBatch && group[index]!.createdAt.getTime() - group[from]!.createdAt.getTime() <= maxBatchSpanMs) continue
      rows.push(batchRow(group.slice(from, index)))
      from = index
    }
  }
  return rows
}

/** One key's entries, oldest first, as a row. */
function batchRow(entries: ApiRequestEntry[]): BatchRow {
  const classCounts = [0, 0, 0, 0, 0]
  for (const entry of entries) {
    const index = statusClassIndex(entry.status)
    if (index !== null) classCounts[index]!++
  }
  const [first, last] = [entries[0]!, entries.at(-1)!]
  return [createId('rqb'), first.tenantId, first.tokenId, first.createdAt, last.createdAt, entries.length, classCounts, JSON.stringify(entries.map(toStoredEntry))]
}

const columns = 'id, tenant_id, token_id, first_at, last_at, entry_count, class_counts, entries'

function insertStatement(rowCount: number): string {
  const rows = Array.from({ length: rowCount }, (_, row) => {
    const at = row * 8
    return `($${at + 1}, $${at + 2}, $${at + 3}, $${at + 4}, $${at + 5}, $${at + 6}, $${at + 7}::int[], $${at + 8}::json)`
  })
  return `INSERT INTO api_request_batches (${columns}) VALUES ${rows.join(', ')}`
}

// One write at a time, so a write that never ends would stop the log for good: PostgreSQL
// cancels it after this long (and the client gives up a little later on a connection that died).
const writeTimeoutMs = 30_000

/** Writes the entries; a chunk that fails is reported and the rest are still written. */
async function writeBatch(entries: ApiRequestEntry[]): Promise<void> {
  const rows = batchRows(entries)
  for (let from = 0; from < rows.length; from += batchesPerStatement) {
    const chunk = rows.slice(from, from + batchesPerStatement)
    await writeChunk(chunk).catch((error: Error) =>
      logger.warn({ request_log: 'flush_failed', entries: chunk.reduce((sum, row) => sum + row[5], 0), error: error.message }, 'request log entries not written'),
    )
  }
}

// The log's commits do not wait for their WAL to reach the disk (synchronous_commit off, this
// transaction only): a crash of PostgreSQL itself can lose the last fraction of a second of the
// log, as a killed service loses what it had buffered, and the log no longer makes the disk flush
// a few times a second. Articles, events and everything else still commit synchronously.
const beginLogWrite = `BEGIN; SET LOCAL statement_timeout = ${writeTimeoutMs}; SET LOCAL synchronous_commit = off`

async function writeChunk(chunk: BatchRow[]): Promise<void> {
  const client = await sqlPool.connect()
  try {
    await client.query(beginLogWrite)
    // pg honours query_timeout per query (its client reads it from the config); its types omit it.
    await client.query({ text: insertStatement(chunk.length), values: chunk.flat(), query_timeout: writeTimeoutMs + 5_000 } as QueryConfig)
    await client.query('COMMIT')
  } catch (error) {
    // A refused batch (PostgreSQL's timeout included) leaves the connection usable once rolled
    // back. One the client gave up on may still be running the statement (a ROLLBACK would queue
    // behind it), and one that cannot roll back is broken: those are dropped from the pool.
    const gaveUp = (error as Error).message === 'Query read timeout'
    const broken = gaveUp ? (error as Error) : await client.query({ text: 'ROLLBACK', query_timeout: 5_000 } as QueryConfig).then(() => undefined, (rollbackError: Error) => rollbackError)
    client.release(broken)
    throw error
  }
  client.release()
}

type Buffer = {
  entries: ApiRequestEntry[]
  timer: NodeJS.Timeout | null
  flushing: Promise<void> | null
  dropped: number
}

const buffer = processSingleton<Buffer>('request-log buffer', () => ({ entries: [], timer: null, flushing: null, dropped: 0 }))

/** Whether requests are recorded (REQUEST_LOG=off stops it); a caller asks before building an entry. */
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
  buffer.entries.push(storable(entry))
  scheduleFlush()
}

/**
 * A full buffer is written now, a partial one within flushEveryMs. While a batch is being
 * written nothing is started: the write looks again when it ends. (Each request that arrived
 * during a write used to start a flush that waited for it: thousands of waiting calls a second
 * under load, each woken when the write ended.)
 */
function scheduleFlush(): void {
  if (buffer.flushing || buffer.entries.length === 0) return
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
  buffer.flushing = writeBatch(batch)
    .catch((error: Error) => logger.warn({ request_log: 'flush_failed', entries: batch.length, error: error.message }, 'request log entries not written'))
    .finally(() => {
      buffer.flushing = null
      if (buffer.dropped > 0) {
        logger.warn({ request_log: 'dropped', entries: buffer.dropped }, 'request log entries dropped while the database was unreachable')
        buffer.dropped = 0
      }
      scheduleFlush()
    })
  await buffer.flushing
}
