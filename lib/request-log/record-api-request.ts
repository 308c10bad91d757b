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
// What waits is kept small (at 10,000 req/s, a tenth of a second's entries): every entry still
// waiting is copied by each young-generation garbage collection and, kept longer, moved to the
// old generation. A write commits asynchronously (beginLogWrite), so more writes do not mean
// more disk flushes.
const flushAtEntries = 1_000
// A batch row holds at most this many entries: a page or a lookup parses whole batches.
const maxEntriesPerBatch = 500
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
 * One key's entries waiting to be written, each already in its stored form (a JSON text) with its
 * arrival time and status beside it: a busy server holds thousands of them between writes, and
 * one flat string each is less for every garbage collection to copy than an entry's objects.
 */
type WaitingEntries = { tenantId: string; tokenId: string; texts: string[]; times: number[]; statuses: number[] }

/**
 * The longest a batch spans, from its first request's arrival to its last's. Entries kept while
 * the database was away may span more; they are split, so a reader looking for the entries
 * around a moment reads only batches that end within this of it (list-api-requests.ts).
 */
export const maxBatchSpanMs = 60_000

/** The waiting entries as batch rows: one per key, or more when they span more than maxBatchSpanMs or number more than maxEntriesPerBatch. */
function batchRows(keys: WaitingEntries[]): BatchRow[] {
  const rows: BatchRow[] = []
  for (const waiting of keys) {
    // Entries wait in the order they were answered; a batch spans the times they arrived.
    const order = waiting.times.map((_, index) => index).sort((a, b) => waiting.times[a]! - waiting.times[b]!)
    let from = 0
    for (let index = 1; index <= order.length; index++) {
      if (index < order.length && index - from < maxEntriesPerBatch && waiting.times[order[index]!]! - waiting.times[order[from]!]! <= maxBatchSpanMs) continue
      rows.push(batchRow(waiting, order.slice(from, index)))
      from = index
    }
  }
  return rows
}

/** Some of one key's entries (their indexes, oldest first) as a row. */
function batchRow(waiting: WaitingEntries, indexes: number[]): BatchRow {
  const classCounts = [0, 0, 0, 0, 0]
  for (const index of indexes) {
    const statusClass = statusClassIndex(waiting.statuses[index]!)
    if (statusClass !== null) classCounts[statusClass]!++
  }
  const [first, last] = [waiting.times[indexes[0]!]!, waiting.times[indexes.at(-1)!]!]
  const entries = `[${indexes.map((index) => waiting.texts[index]).join(',')}]`
  return [createId('rqb'), waiting.tenantId, waiting.tokenId, new Date(first), new Date(last), indexes.length, classCounts, entries]
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
async function writeBatch(keys: WaitingEntries[]): Promise<void> {
  const rows = batchRows(keys)
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
    // pg honours query_timeout per query (its client reads it from the config); its types omit
    // it. Every statement of the write has one, so a connection that died unseen cannot hold the
    // log's one write (and with it every later entry) for good.
    const timeout = writeTimeoutMs + 5_000
    await client.query({ text: beginLogWrite, query_timeout: timeout } as QueryConfig)
    await client.query({ text: insertStatement(chunk.length), values: chunk.flat(), query_timeout: timeout } as QueryConfig)
    await client.query({ text: 'COMMIT', query_timeout: timeout } as QueryConfig)
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
  /** By newsroom, then by key: the ids are strings whose hashes are kept, where a joined key would be hashed anew each time. */
  byKey: Map<string, Map<string, WaitingEntries>>
  size: number
  timer: NodeJS.Timeout | null
  flushing: Promise<void> | null
  dropped: number
}

const buffer = processSingleton<Buffer>('request-log buffer', () => ({ byKey: new Map(), size: 0, timer: null, flushing: null, dropped: 0 }))

// Read once: a lookup in process.env costs ~0.3 us, and every /v1 request asked twice.
const recording = process.env.REQUEST_LOG !== 'off'

/** Whether requests are recorded (REQUEST_LOG=off, read at start, stops it); a caller asks before building an entry. */
export function requestLogEnabled(): boolean {
  return recording
}

/** Queues one request for the log; never blocks or throws. */
export function recordApiRequest(entry: ApiRequestEntry): void {
  if (!requestLogEnabled()) return
  if (buffer.size >= maxBufferedEntries) {
    buffer.dropped++
    return
  }
  const stored = storable(entry)
  let newsroom = buffer.byKey.get(stored.tenantId)
  if (!newsroom) buffer.byKey.set(stored.tenantId, (newsroom = new Map()))
  let waiting = newsroom.get(stored.tokenId)
  if (!waiting) newsroom.set(stored.tokenId, (waiting = { tenantId: stored.tenantId, tokenId: stored.tokenId, texts: [], times: [], statuses: [] }))
  waiting.texts.push(JSON.stringify(toStoredEntry(stored)))
  waiting.times.push(stored.createdAt.getTime())
  waiting.statuses.push(stored.status)
  buffer.size++
  scheduleFlush()
}

/**
 * A full buffer is written now, a partial one within flushEveryMs. While a batch is being
 * written nothing is started: the write looks again when it ends. (Each request that arrived
 * during a write used to start a flush that waited for it: thousands of waiting calls a second
 * under load, each woken when the write ended.)
 */
function scheduleFlush(): void {
  if (buffer.flushing || buffer.size === 0) return
  if (buffer.size >= flushAtEntries) void flushRequestLog()
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
  if (buffer.size === 0) return
  const [keys, entries] = [[...buffer.byKey.values()].flatMap((newsroom) => [...newsroom.values()]), buffer.size]
  buffer.byKey = new Map()
  buffer.size = 0
  buffer.flushing = writeBatch(keys)
    .catch((error: Error) => logger.warn({ request_log: 'flush_failed', entries, error: error.message }, 'request log entries not written'))
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
