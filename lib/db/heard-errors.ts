import type pg from 'pg'

/**
 * Every connection of `pool` always has a listener for 'error'. pg-pool listens only while a
 * connection is idle in the pool; one that is checked out (a request-log flush, an outbox
 * send, a transaction) when the server cuts it (a restart, a Patroni failover, HAProxy's
 * shutdown-sessions) emits 'error' with nobody listening, and Node ends the process: one
 * database restart took a whole instance down with it. The statement in flight fails on its
 * own (its caller answers 503, or retries); the connection, no longer queryable, is dropped
 * from the pool when released. So the listener has nothing left to do but be there.
 */
export function hearConnectionErrors(pool: pg.Pool): pg.Pool {
  pool.on('connect', (client) => {
    client.on('error', () => undefined)
  })
  return pool
}
