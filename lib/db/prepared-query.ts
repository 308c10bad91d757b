import { randomBytes } from 'node:crypto'
import pg from 'pg'

/**
 * A statement a request makes many times a second (the portal session read of every open
 * editor's poll, the lease renewal), run as a named prepared statement: PostgreSQL parses and
 * plans it once per connection instead of once per call. The session read's three-table join
 * cost PostgreSQL ~310 µs per call unnamed and ~100 µs prepared (bench/results/editors-*).
 *
 * The name carries a suffix of the connection it is prepared on, because the embedded store
 * (PGlite behind lib/db/embedded-server.ts) serves every connection, from every process, from
 * one session: a second connection preparing the same name there would be refused ("prepared
 * statement already exists"). On PostgreSQL each connection has its own names anyway.
 */
type PreparedOnConnection = { suffix: string; names: Set<string> }

const connections = new WeakMap<pg.PoolClient, PreparedOnConnection>()

/**
 * The most statements kept prepared on one connection; past it, a new text runs unnamed. The
 * texts are the code's, but a PATCH's depends on the fields sent (127 from field subsets alone),
 * and each plan of an article write holds ~100 KB of the backend's memory for the connection's
 * life: without a bound, any token that may write could grow every connection by ~13 MB. The
 * statements prepared first are the ones a busy instance makes most.
 */
export const maxPreparedPerConnection = 64

/**
 * PostgreSQL refuses to run a prepared statement whose result columns changed type since it was
 * prepared (a migration run under a running instance: a column's type or precision changed, a
 * Prisma enum recreated): "cached plan must not change result type". The statement did not run,
 * and it fails on every later run on that connection until the connection is dropped.
 */
export function stalePreparedPlan(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown }
  return code === '0A000' && typeof message === 'string' && message.includes('cached plan must not change result type')
}

export async function preparedQuery<Row extends pg.QueryResultRow>(pool: pg.Pool, name: string, text: string, values: unknown[], mapRow?: (row: pg.QueryResultRow) => Row): Promise<pg.QueryResult<Row>> {
  // A stale statement ran nothing and its connection is dropped: run it again, prepared anew on
  // another connection (each of the pool's may hold a stale one, hence up to its size and one).
  for (let attempt = 1; ; attempt++) {
    try {
      return await preparedQueryOnce(pool, name, text, values, mapRow)
    } catch (error) {
      if (!stalePreparedPlan(error) || attempt > (pool.options.max ?? 10)) throw error
    }
  }
}

async function preparedQueryOnce<Row extends pg.QueryResultRow>(pool: pg.Pool, name: string, text: string, values: unknown[], mapRow?: (row: pg.QueryResultRow) => Row): Promise<pg.QueryResult<Row>> {
  const client = await pool.connect()
  // As pool.query does: a connection that fails while checked out (the server went away) must
  // not throw an unhandled 'error', and a connection that failed a statement is not reused.
  let failed: Error | undefined
  const onError = (error: Error) => {
    failed = error
  }
  client.once('error', onError)
  try {
    return await preparedQueryOn(pool, client, name, text, values, mapRow)
  } catch (error) {
    failed ??= error as Error
    throw error
  } finally {
    client.removeListener('error', onError)
    client.release(failed)
  }
}

/**
 * As preparedQuery, on a connection the caller has checked out of `pool` (a transaction's),
 * which the caller releases.
 */
export async function preparedQueryOn<Row extends pg.QueryResultRow>(pool: pg.Pool, client: pg.PoolClient, name: string, text: string, values: unknown[], mapRow?: (row: pg.QueryResultRow) => Row): Promise<pg.QueryResult<Row>> {
  let prepared = connections.get(client)
  if (!prepared) {
    prepared = { suffix: randomBytes(6).toString('base64url'), names: new Set() }
    connections.set(client, prepared)
    const forget = prepared
    client.once('end', () => void deallocateInSharedSession(pool, forget.names))
  }
  const preparedName = `${name}-${prepared.suffix}`
  const keep = prepared.names.has(preparedName) || prepared.names.size < maxPreparedPerConnection
  const config = keep ? { name: preparedName, text, values } : { text, values }
  const result = mapRow ? await mappedAsRead(client, config, mapRow) : await client.query<Row>(config)
  if (keep) prepared.names.add(preparedName)
  return result
}

/**
 * The statement's rows, each given to `mapRow` as it is read off the connection and only what
 * that returns kept: a page's rows (a ~4 KB body each) never wait, whole, for the last one to
 * arrive. Measured at 1,000,000 articles (issue 50): a cold list page's service CPU 3,833 -> 3,617
 * µs; the collector's share did not move (25 %), so the rows in flight were not what it spends on.
 * A row `mapRow` throws for fails the read.
 */
function mappedAsRead<Row extends pg.QueryResultRow>(client: pg.PoolClient, config: pg.QueryConfig, mapRow: (row: pg.QueryResultRow) => Row): Promise<pg.QueryResult<Row>> {
  return new Promise((resolve, reject) => {
    const query = new pg.Query(config)
    const rows: Row[] = []
    let failed: unknown
    query.on('row', (row: pg.QueryResultRow) => {
      if (failed !== undefined) return
      try {
        rows.push(mapRow(row))
      } catch (error) {
        failed = error
      }
    })
    query.once('error', reject)
    query.once('end', (result: pg.QueryResult<Row>) => (failed === undefined ? resolve({ ...result, rows }) : reject(failed)))
    client.query(query)
  })
}

// On PostgreSQL a connection's statements end with it. PGlite's one session outlives every
// connection, so each connection the pool closed (idle for 10 s, by default) left its statements
// there for good, and the next one prepared them again under its own suffix: 20 rounds of four
// connections left 80 statements behind. They are dropped through another connection, which
// shares that session.
const sharedSessionByPool = new WeakMap<pg.Pool, Promise<boolean>>()

function sharesOneSession(pool: pg.Pool): Promise<boolean> {
  let shared = sharedSessionByPool.get(pool)
  if (!shared) {
    shared = pool.query<{ version: string }>('SELECT version()').then(
      ({ rows }) => rows[0]!.version.includes('PGlite'),
      () => {
        sharedSessionByPool.delete(pool)
        return false
      },
    )
    sharedSessionByPool.set(pool, shared)
  }
  return shared
}

async function deallocateInSharedSession(pool: pg.Pool, names: Set<string>): Promise<void> {
  if (names.size === 0 || pool.ending || pool.ended) return
  try {
    if (!(await sharesOneSession(pool))) return
    await pool.query([...names].map((name) => `DEALLOCATE "${name.replaceAll('"', '""')}"`).join('; '))
  } catch {
    // The pool is ending or the store went away: its session, and these statements, go with it.
  }
}
