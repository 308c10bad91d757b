import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { from as copyFrom } from 'pg-copy-streams'
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

// Entries are written together, off the response path: one statement per batch instead of one
// per request. What was acknowledged but not yet flushed is lost if the process is killed (the
// log is a diagnostic, not a record of changes; articles and events commit with their requests).
const flushEveryMs = 1_000
const flushAtEntries = 500
// A database that stays away must not grow memory without bound: past this, entries are dropped.
const maxBufferedEntries = 20_000

const columns = 'id, tenant_id, token_id, method, route, query_keys, status, problem_code, duration_ms, client_address, created_at'

// A batch goes to PostgreSQL as COPY: at thousands of requests a second these rows share the
// machine with the service, and COPY cost PostgreSQL about 25% less CPU per row than one INSERT
// over unnested arrays (40,000 rows in batches of 500, this table's indexes), which itself cost a
// fraction of Prisma's createMany or a JSON document per batch. No ON CONFLICT either: every id
// is new and no batch is written twice.
const copyBatch = `COPY api_requests (${columns}) FROM STDIN`

// The embedded database (PGlite behind its socket server) never answers COPY's data messages, so
// there the same batch is one INSERT over the columns as arrays.
const insertBatch = `
INSERT INTO api_requests (${columns})
SELECT id, tenant_id, token_id, method, route, ARRAY(SELECT json_array_elements_text(query_keys::json)), status, problem_code, duration_ms, client_address, created_at
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[], $8::text[], $9::int[], $10::text[], $11::timestamptz[])
  AS entry(${columns})`

// PostgreSQL's text cannot hold NUL, which a query key can decode to (`?%00=`): stored as is, it
// would fail its whole batch, other newsrooms' entries included. Removed once, when recorded,
// whichever way the batch is then written.
const withoutNul = (text: string) => (text.includes('\0') ? text.replaceAll('\0', '') : text)

function storable(entry: ApiRequestEntry): ApiRequestEntry {
  const { route, queryKeys, clientAddress } = entry
  if (!route.includes('\0') && !clientAddress?.includes('\0') && !queryKeys.some((key) => key.includes('\0'))) return entry
  return { ...entry, route: withoutNul(route), queryKeys: queryKeys.map(withoutNul), clientAddress: clientAddress && withoutNul(clientAddress) }
}

const copyEscapes: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' }
const copySpecial = /[\\\n\r\t]/
const copySpecials = /[\\\n\r\t]/g

/** A value in COPY's text format: NULL as \N, and backslash, tab and line breaks escaped. */
function copyField(value: string | null): string {
  if (value === null) return '\\N'
  return copySpecial.test(value) ? value.replace(copySpecials, (character) => copyEscapes[character]!) : value
}

/** A text[] literal whose elements are always quoted, so commas, braces, spaces and NULL stay text. */
function arrayLiteral(values: string[]): string {
  return `{${values.map((value) => `"${value.replace(/["\\]/g, '\\$&')}"`).join(',')}}`
}

function copyLine(entry: ApiRequestEntry): string {
  return (
    [
      copyField(entry.id),
      copyField(entry.tenantId),
      copyField(entry.tokenId),
      copyField(entry.method),
      copyField(entry.route),
      copyField(arrayLiteral(entry.queryKeys)),
      String(entry.status),
      copyField(entry.problemCode),
      String(Math.round(entry.durationMs)),
      copyField(entry.clientAddress),
      entry.createdAt.toISOString(),
    ].join('\t') + '\n'
  )
}

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
    batch.map((entry) => Math.round(entry.durationMs)),
    batch.map((entry) => entry.clientAddress),
    batch.map((entry) => entry.createdAt.toISOString()),
  ]
}

type Buffer = {
  entries: ApiRequestEntry[]
  timer: NodeJS.Timeout | null
  flushing: Promise<void> | null
  dropped: number
  /** Whether the database takes COPY, once known (databaseTakesCopy). */
  takesCopy?: Promise<boolean>
}

const buffer = processSingleton<Buffer>('request-log buffer', () => ({ entries: [], timer: null, flushing: null, dropped: 0 }))

/**
 * Whether the database is PostgreSQL proper rather than the embedded PGlite, asked once per
 * process: DATABASE_URL may name an embedded server too (the tests', a second dev process's).
 * Unanswered (the database away), it is asked again at the next batch.
 */
function databaseTakesCopy(): Promise<boolean> {
  buffer.takesCopy ??= sqlPool.query<{ version: string }>('SELECT version()').then(
    ({ rows }) => !rows[0]!.version.includes('PGlite'),
    () => {
      buffer.takesCopy = undefined
      return false
    },
  )
  return buffer.takesCopy
}

// One write at a time, so a COPY that never ends would stop the log for good: it is abandoned
// (and its connection closed) after this long, and its entries reported as not written.
const writeTimeoutMs = 30_000

async function writeBatch(batch: ApiRequestEntry[]): Promise<void> {
  if (!(await databaseTakesCopy())) {
    await sqlPool.query(insertBatch, columnsOf(batch))
    return
  }
  const client = await sqlPool.connect()
  const copy = client.query(copyFrom(copyBatch))
  const timer = setTimeout(() => copy.destroy(new Error(`the write took longer than ${writeTimeoutMs / 1000} s`)), writeTimeoutMs)
  try {
    await pipeline(Readable.from([batch.map(copyLine).join('')]), copy)
    client.release()
  } catch (error) {
    // A connection left in the middle of COPY cannot serve anyone else.
    client.release(error as Error)
    throw error
  } finally {
    clearTimeout(timer)
  }
}

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
