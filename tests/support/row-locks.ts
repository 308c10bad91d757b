import pg from 'pg'

/**
 * Races made to happen, not hoped for: a connection of the test's own, in a transaction, holding
 * whatever locks `sql` takes (a row FOR UPDATE, an uncommitted DELETE) until released, so that
 * one request is parked at the worst moment while another runs.
 */
export async function holdLock(sql: string, params: unknown[]) {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL })
  await client.connect()
  await client.query('BEGIN')
  await client.query(sql, params)
  return {
    query: (text: string, values: unknown[]) => client.query(text, values),
    async release(how: 'COMMIT' | 'ROLLBACK' = 'COMMIT') {
      await client.query(how)
      await client.end()
    },
  }
}

/**
 * Waits until `count` sessions of this test's database wait for a lock (the parked requests), or
 * until `unless()` holds (say, the request expected to wait finished without waiting).
 */
export async function waitForLockWaiters(count: number, unless: () => boolean = () => false) {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL })
  await client.connect()
  try {
    for (let tries = 0; tries < 400; tries++) {
      if (unless()) return
      const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`)
      if (rows[0]!.n >= count) return
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
    throw new Error(`fewer than ${count} requests ever waited for a lock`)
  } finally {
    await client.end()
  }
}

/**
 * `first`, then `second`, queued in that order for the member's factor lock (held here until
 * both wait), then the lock let go: they run in that order, as two requests that arrive so do
 * (PostgreSQL grants a lock to its waiters in turn). Both settle; neither rejects the call.
 */
export async function inTurnAtFactorLock<A, B>(userId: string, first: () => Promise<A>, second: () => Promise<B>): Promise<[PromiseSettledResult<A>, PromiseSettledResult<B>]> {
  const lock = await holdLock('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`second factors:${userId}`])
  const a = first()
  a.catch(() => undefined)
  await waitForLockWaiters(1)
  const b = second()
  b.catch(() => undefined)
  await waitForLockWaiters(2)
  await lock.release()
  return Promise.allSettled([a, b])
}

/**
 * `change` (a transaction that writes the audit table last, as every change that ends a member's
 * sessions does) parked just before its commit by holding that table, while `during` runs until
 * it waits for a lock or ends; then the change commits. `during` starts at least 20 ms after the
 * change's stamp of credentialsChangedAt, so that a check by the clock alone would let it through:
 * what is left to refuse it is what it read before the commit (break58). Both settle.
 */
export async function duringUncommittedChange<A, B>(change: () => Promise<A>, during: () => Promise<B>): Promise<{ changed: PromiseSettledResult<A>; during: PromiseSettledResult<B> }> {
  const audit = await holdLock('LOCK TABLE audit_entries IN ACCESS EXCLUSIVE MODE', [])
  const changing = change()
  changing.catch(() => undefined)
  await waitForLockWaiters(1)
  await new Promise((resolve) => setTimeout(resolve, 20))
  let done = false
  const running = during().finally(() => (done = true))
  running.catch(() => undefined)
  await waitForLockWaiters(2, () => done)
  await audit.release()
  const [changed, settled] = await Promise.allSettled([changing, running])
  return { changed, during: settled }
}
