/**
 * Checks out one connection of the app's shared pool (lib/db/client.ts) and holds it, as a
 * request-log flush or an outbox send does between statements. Prints `backend <pid>`; once
 * the server has cut the connection, prints `survived` and exits 0. A process that cannot hear
 * the connection's error ends with Node's "Unhandled 'error' event" instead.
 *
 *   DATABASE_URL=... node --import tsx tests/support/hold-connection-process.ts
 */
import { sqlPool } from '../../lib/db/client.ts'

const client = await sqlPool.connect()
const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')
client.once('end', () => {
  // After the 'error' the cut emits (same tick as 'end'): still here.
  setTimeout(() => {
    client.release(new Error('cut'))
    console.log('survived')
    void sqlPool.end().finally(() => process.exit(0))
  }, 100)
})
console.log(`backend ${rows[0]!.pid}`)
setTimeout(() => process.exit(4), 60_000).unref()
