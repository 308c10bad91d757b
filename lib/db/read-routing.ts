import { AsyncLocalStorage } from 'node:async_hooks'
import pg from 'pg'
import { sqlPool } from './client.ts'
import { preparedQuery } from './prepared-query.ts'
import { endGenericPlanPool, genericPlanPool } from './generic-plan-pool.ts'
import { processSingleton } from '../process-singleton.ts'
import { hearConnectionErrors } from './heard-errors.ts'
import { getRedis } from '../redis.ts'
import { metrics, serverOf } from '../ops/metrics.ts'
import { hotSetting } from '../config/hot-setting.ts'

/**
 * Where a read goes: the primary, or (with DATABASE_REPLICA_URL) the streaming replica when it
 * is sure to hold everything the reader may have been told was written. Decided here and only
 * here; callers read through tenantSql (lib/tenancy/tenant-sql.ts) and never name a database.
 *
 * - Only reads inside `readOnly()` (a GET of /v1 or /content/v1) may go to the replica; a write,
 *   and every read a write makes (an If-Match check, a re-read after a lost race), a job or a
 *   portal page is on the primary, because nothing outside that scope is routed.
 * - After each committed change, the primary's WAL position is recorded for its newsroom
 *   (`changesCommitted`, called by articlesChanged before the newsroom's generation advances, so a
 *   reader that sees the new generation also sees the position). A read uses the replica only
 *   when the replica has replayed past its newsroom's last position: the writer's own next read,
 *   on any instance, is never older than its write.
 * - A replica lagging more than REPLICA_MAX_LAG_MS, or unreachable, sends reads to the primary;
 *   newsroom_replica_fallback_reads_total counts each, by reason.
 *
 * Positions live in Redis (one sorted set, updated only upwards, so concurrent writers never
 * move a newsroom's position back) and, without REDIS_URL, in this process.
 */

export type ReadSource = 'primary' | 'replica'
type FallbackReason = 'behind' | 'lagging' | 'unavailable' | 'unknown_position'

const positionsKey = 'newsroom:replica:write-positions'
// The replica's replay position is asked at most this often per process; a stale answer only
// errs towards the primary (the position only grows).
const statusTtlMs = () => Number(process.env.REPLICA_STATUS_TTL_MS ?? 20)
const maxLagMs = () => Number(process.env.REPLICA_MAX_LAG_MS ?? 2_000)
// After a failure the replica is not tried again for this long: an outage costs one slow
// answer, not one per request.
const downRetryMs = 1_000

type ReplicaStatus = { up: boolean; replayed: bigint; lagMs: number; at: number }
type State = { pool: pg.Pool | undefined; url: string | undefined; status: ReplicaStatus | undefined; asking: Promise<ReplicaStatus> | undefined; positions: Map<string, bigint> }

const state = processSingleton<State>('read routing', () => ({ pool: undefined, url: undefined, status: undefined, asking: undefined, positions: new Map() }))

function replicaPool(): pg.Pool | undefined {
  const url = process.env.DATABASE_REPLICA_URL
  if (!url) return undefined
  if (state.pool && state.url === url) return state.pool
  if (state.pool) void endGenericPlanPool(state.pool)
  void state.pool?.end().catch(() => undefined)
  // Behind a load balancer the replica address may lead to the primary (HAProxy sends reads to
  // the leader while no replica passes its check: at start, during a failover, or while a busy
  // replica's check is slow). Such a connection must never serve a routed read: its status
  // query may have gone to a real replica on another connection of this pool, so a read on it
  // would skip the write-position check altogether (and a test pausing the replica would read
  // the primary). Each connection is therefore checked once, when made: one that reached a
  // primary is closed and the read falls back to the primary as `unavailable`. Connections
  // are also renewed every minute, so reads return to a replica that comes back.
  const pool = new pg.Pool({
    connectionString: url,
    max: Number(process.env.DATABASE_POOL_SIZE ?? 10),
    connectionTimeoutMillis: 1_000,
    maxLifetimeSeconds: 60,
    // Named, so an operator sees in pg_stat_activity which connections are the replica reads'.
    application_name: 'newsroom-replica-reads',
    onConnect: standbyOnly,
  })
  pool.on('error', (error) => console.warn(`[db] an idle replica connection failed: ${error.message}`))
  hearConnectionErrors(pool)
  state.pool = pool
  state.url = url
  state.status = undefined
  return pool
}

/** pg-pool's connect hook for the replica pool (and its generic-plan sibling, which copies its options): refuses a connection made to a primary. */
async function standbyOnly(client: pg.ClientBase): Promise<void> {
  const { rows } = await client.query<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby')
  if (!rows[0]?.standby) throw new Error('the replica address led to a primary (no replica in the load balancer’s rotation)')
}

/**
 * Whether the replica answers now (for /readyz: with the primary away, an instance whose
 * replica answers still serves reads, so it stays in the load balancer's rotation).
 */
export async function replicaAnswers(): Promise<boolean> {
  const pool = replicaPool()
  if (!pool) return false
  return pool.query('SELECT 1').then(
    () => true,
    () => false,
  )
}

/** Whether reads may be routed at all: a replica is configured. */
export function replicaConfigured(): boolean {
  return Boolean(hotSetting('DATABASE_REPLICA_URL'))
}

const readOnlyScope = processSingleton('read routing scope', () => new AsyncLocalStorage<true>())

/**
 * Runs `work` as a request that changes nothing: its reads may go to the replica. Each read is
 * decided when it is made, against its newsroom's position then, so a read joined to another
 * request's batch (lib/articles/get-article.ts) is as fresh as one made on its own.
 */
export function readOnly<T>(work: () => Promise<T>): Promise<T> {
  if (!replicaConfigured()) return work()
  return readOnlyScope.run(true, work)
}

/**
 * A read of `tenantId`'s rows: on the replica when allowed and caught up, else on the primary.
 * With `preparedName`, as that prepared statement of the connection it runs on (prepared-query.ts),
 * and with `generic` too, on a connection that keeps one generic plan for it (generic-plan-pool.ts).
 */
export async function routedQuery<Row extends pg.QueryResultRow>(tenantId: string, text: string, values: unknown[], preparedName?: string, generic = false, mapRow?: (row: pg.QueryResultRow) => Row): Promise<pg.QueryResult<Row>> {
  // `mapRow`: each row as the caller keeps it, mapped as it is read where the statement is prepared, else after.
  const unprepared = async (pool: pg.Pool) => {
    const result = await pool.query(text, values)
    return mapRow ? { ...result, rows: result.rows.map(mapRow) } : (result as pg.QueryResult<Row>)
  }
  const on = async (pool: pg.Pool) => (preparedName === undefined ? unprepared(pool) : preparedQuery<Row>(generic ? await genericPlanPool(pool) : pool, preparedName, text, values, mapRow))
  if (!replicaConfigured() || !readOnlyScope.getStore() || (await chooseSource(tenantId)) === 'primary') return on(sqlPool)
  try {
    return await on(replicaPool()!)
  } catch (error) {
    if (!replicaFailure(error)) throw error
    // The replica went away (or cancelled the read for a conflict with recovery): the primary answers.
    markDown()
    metrics.replicaFallbacks.inc({ reason: 'unavailable' })
    return on(sqlPool)
  }
}

/** Where the read of `tenantId` goes now (exported for tests and the bench). */
export async function chooseSource(tenantId: string): Promise<ReadSource> {
  const fallback = (reason: FallbackReason): ReadSource => {
    metrics.replicaFallbacks.inc({ reason })
    return 'primary'
  }
  let status = await replicaStatus()
  if (!status.up) return fallback('unavailable')
  if (status.lagMs > maxLagMs()) return fallback('lagging')
  const written = await writePosition(tenantId)
  if (written === 'unknown') return fallback('unknown_position')
  // A change committed moments ago is usually replayed already: ask once more before giving up.
  if (written > status.replayed) status = await replicaStatus(true)
  if (!status.up) return fallback('unavailable')
  return written > status.replayed ? fallback('behind') : 'replica'
}

/**
 * Records that changes of these newsrooms committed: the primary's WAL position now (at or past
 * each change's commit record). Awaited before the writer answers, and before the newsrooms'
 * generation advances (lib/articles/article-totals.ts). Without a replica it does nothing.
 */
export async function changesCommitted(tenantIds: string[]): Promise<void> {
  if (!replicaConfigured() || tenantIds.length === 0) return
  let position: bigint
  try {
    const { rows } = await sqlPool.query<{ lsn: string }>("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint::text AS lsn")
    position = BigInt(rows[0]!.lsn)
  } catch (error) {
    // The change has committed: its writer is answered; only this newsroom's next reads may see the replica a moment behind.
    console.warn(`[db] could not read the primary's WAL position after a commit (${(error as Error).message}).`)
    return
  }
  const redis = getRedis()
  if (!redis) {
    for (const tenantId of tenantIds) if (position > (state.positions.get(tenantId) ?? 0n)) state.positions.set(tenantId, position)
    return
  }
  // GT: a newsroom's position only ever moves forward. Positions are bytes of WAL: a double holds them exactly below 8 PiB.
  await Promise.all(
    tenantIds.map((tenantId) =>
      redis.zadd(positionsKey, 'GT', Number(position), tenantId).catch((error: Error) => {
        // One line per outage, not one per write: reads of a newsroom whose position is unknown go to the primary.
        if (redis.status === 'ready') console.warn(`[db] could not record a write position in Redis (${error.message}); reads of ${tenantId} may be older than its last change until the replica replays it.`)
      }),
    ),
  )
}

async function writePosition(tenantId: string): Promise<bigint | 'unknown'> {
  const redis = getRedis()
  if (!redis) return state.positions.get(tenantId) ?? 0n
  try {
    const score = await redis.zscore(positionsKey, tenantId)
    return score === null ? 0n : BigInt(Math.round(Number(score)))
  } catch {
    return 'unknown'
  }
}

/** The replica's replay position and lag, asked at most every REPLICA_STATUS_TTL_MS (`fresh` asks now). */
function replicaStatus(fresh = false): Promise<ReplicaStatus> {
  const known = state.status
  const now = Date.now()
  if (known && !fresh && now - known.at < (known.up ? statusTtlMs() : downRetryMs)) return Promise.resolve(known)
  if (known && !known.up && now - known.at < downRetryMs) return Promise.resolve(known)
  state.asking ??= askReplica().finally(() => (state.asking = undefined))
  return state.asking
}

/** Asks the replica now (for a /metrics scrape), which sets newsroom_replica_up and _lag_seconds. Without a replica: nothing. */
export async function refreshReplicaStatus(): Promise<void> {
  if (replicaConfigured()) await replicaStatus(true)
}

/** What the replica said last, as the operator's gauges show it. */
function recordStatus(status: ReplicaStatus): ReplicaStatus {
  const server = serverOf(process.env.DATABASE_REPLICA_URL ?? '')
  metrics.replicaUp.reset()
  metrics.replicaUp.set({ server }, status.up ? 1 : 0)
  metrics.replicaLag.reset()
  if (status.up) metrics.replicaLag.set({ server }, status.lagMs / 1000)
  return (state.status = status)
}

async function askReplica(): Promise<ReplicaStatus> {
  const at = Date.now()
  try {
    // Lag is the age of the last replayed transaction while WAL received is still waiting to be
    // replayed; a replica that has replayed all it received is not behind, however quiet the primary.
    const { rows } = await withTimeout(
      replicaPool()!.query<{ replayed: string | null; lag_ms: number | null }>(
        `SELECT pg_wal_lsn_diff(pg_last_wal_replay_lsn(), '0/0')::bigint::text AS replayed,
                CASE WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
                     ELSE extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp()) * 1000 END::float8 AS lag_ms`,
      ),
    )
    const row = rows[0]!
    // Not a replica (no replay position): nothing to route to.
    if (row.replayed === null) {
      renewReplicaConnections()
      return recordStatus({ up: false, replayed: 0n, lagMs: 0, at })
    }
    return recordStatus({ up: true, replayed: BigInt(row.replayed), lagMs: row.lag_ms ?? 0, at })
  } catch {
    return recordStatus({ up: false, replayed: 0n, lagMs: 0, at })
  }
}

/** Drops the replica pool's connections (they reached a primary); the next read connects anew. */
function renewReplicaConnections(): void {
  const pool = state.pool
  if (!pool) return
  state.pool = undefined
  state.url = undefined
  void endGenericPlanPool(pool)
  void pool.end().catch(() => undefined)
}

function markDown(): void {
  recordStatus({ up: false, replayed: 0n, lagMs: 0, at: Date.now() })
}

function withTimeout<T>(work: Promise<T>, ms = 1_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the replica did not answer within ${ms} ms`)), ms)
  })
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer))
}

/** A failure of the replica itself, not of the statement: no SQLSTATE (connection lost), or a connection, shutdown or recovery-conflict state. */
function replicaFailure(error: unknown): boolean {
  const code = (error as { code?: unknown }).code
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return true
  return code.startsWith('08') || code.startsWith('57') || code === '40001'
}
