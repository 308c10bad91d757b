import { randomBytes } from 'node:crypto'
import type pg from 'pg'

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
const connectionSuffixes = new WeakMap<pg.PoolClient, string>()

export async function preparedQuery<Row extends pg.QueryResultRow>(pool: pg.Pool, name: string, text: string, values: unknown[]): Promise<pg.QueryResult<Row>> {
  const client = await pool.connect()
  let suffix = connectionSuffixes.get(client)
  if (!suffix) {
    suffix = randomBytes(6).toString('base64url')
    connectionSuffixes.set(client, suffix)
  }
  // As pool.query does: a connection that fails while checked out (the server went away) must
  // not throw an unhandled 'error', and a connection that failed a statement is not reused.
  let failed: Error | undefined
  const onError = (error: Error) => {
    failed = error
  }
  client.once('error', onError)
  try {
    return await client.query<Row>({ name: `${name}-${suffix}`, text, values })
  } catch (error) {
    failed ??= error as Error
    throw error
  } finally {
    client.removeListener('error', onError)
    client.release(failed)
  }
}
