/**
 * How a command-line tool (tokens, seed, migrations) reaches its data: DATABASE_URL when set,
 * otherwise this checkout's own embedded database, found through its data directory and
 * checked by the identity its server gives (lib/db/embedded-server.ts). The database client
 * reads DATABASE_URL when it loads, so `run` imports what uses it only once this has set it.
 */
import { EmbeddedDatabaseError, findOwnEmbeddedDatabase } from '../lib/db/embedded-server.ts'

/** `run` learns whether the database is the embedded one (one client at a time: no second connection for a lock). */
export async function withOwnDatabase(run: (embedded: boolean) => Promise<void>): Promise<void> {
  const isEmbedded = !process.env.DATABASE_URL
  let embedded
  try {
    embedded = await findOwnEmbeddedDatabase()
  } catch (error) {
    console.error(error instanceof EmbeddedDatabaseError ? error.message : error)
    process.exitCode = 1
    return
  }
  // Said on stderr every time: on a server, a shell without the service's environment would
  // otherwise create a newsroom (or migrate, or mint a key) in a development database no
  // instance reads, and print its password as if all were well.
  if (isEmbedded) console.error(`No DATABASE_URL: using this checkout's embedded development database (${process.env.DATABASE_URL ?? 'not running'}). On a server, load the service's environment first (docs/deploy.md).`)
  try {
    await run(isEmbedded)
  } finally {
    const { db } = await import('../lib/db/client.ts')
    await db.$disconnect()
    await embedded?.stop()
  }
}
