import { randomBytes } from 'node:crypto'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { PGLiteSocketServer } from '@electric-sql/pglite-socket'
import {
  configuredEmbeddedPort,
  derivedEmbeddedPort,
  embeddedDataDir,
  embeddedDatabaseUrl,
  embeddedHost,
  readServerRecord,
  serverRecordName,
  type EmbeddedServerRecord,
} from './embedded-config.ts'
import { embeddedIdentityAt, identityComment } from './embedded-identity.ts'

export type EmbeddedDatabase = { url: string; stop: () => Promise<void> }

/** Refusals of the embedded database's start-up and look-up; their message is all the user needs. */
export class EmbeddedDatabaseError extends Error {}

function socketServer(pglite: PGlite, port: number) {
  return new PGLiteSocketServer({
    db: pglite,
    host: embeddedHost,
    port,
    // PGlite has one session. The socket server queues the connections' messages and lets one
    // connection keep the session while it is inside a transaction or an extended-query cycle
    // (Parse … Sync); the latter needs our patch (patches/@electric-sql+pglite-socket+*.patch).
    maxConnections: 32,
  })
}

/**
 * Starts PGlite (PostgreSQL compiled to WebAssembly) on a local directory and serves it
 * over TCP, so the app, the CLI and Prisma's migrations all reach it through the same pg
 * path as real PostgreSQL. It listens on the port given, or EMBEDDED_DB_PORT, or the port of
 * its directory (embedded-config.ts; a free one if another program holds that), and records
 * the port and its identity in the directory, where this checkout's CLI finds them.
 */
export async function startEmbeddedDatabase(options: { dataDir?: string; port?: number } = {}): Promise<EmbeddedDatabase> {
  const directory = path.resolve(options.dataDir ?? embeddedDataDir())
  const fixedPort = options.port ?? configuredEmbeddedPort()
  // PGlite opened twice on one directory corrupts it: refuse while this directory's server runs.
  const running = readServerRecord(directory)
  if (running && (await embeddedIdentityAt(running.port))?.token === running.token) {
    throw new EmbeddedDatabaseError(
      `This checkout's embedded database (${directory}) is already running at ${embeddedHost}:${running.port} (process ${running.pid}). ` +
        'Stop that process first; the CLI and Prisma commands use it as it is.',
    )
  }
  mkdirSync(directory, { recursive: true })
  const pglite = await PGlite.create(directory)
  const token = randomBytes(18).toString('base64url')
  let server = socketServer(pglite, fixedPort ?? derivedEmbeddedPort(directory))
  try {
    // Written on every start, so a directory that moved says where it is now.
    await pglite.exec(`COMMENT ON DATABASE postgres IS '${identityComment({ dataDir: directory, token }).replaceAll("'", "''")}'`)
    try {
      await server.start()
    } catch (error) {
      // The directory's own port is taken by another program: any free port will do, since the record says which.
      if (fixedPort !== undefined || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error
      server = socketServer(pglite, 0)
      await server.start()
    }
  } catch (error) {
    await pglite.close()
    const port = fixedPort ?? derivedEmbeddedPort(directory)
    throw new EmbeddedDatabaseError(
      `The embedded database could not listen on ${embeddedHost}:${port} ` +
        `(${(error as Error).message}). Is another program using that port? Set EMBEDDED_DB_PORT to use another one.`,
    )
  }
  const port = Number(server.getServerConn().split(':').pop())
  const recordFile = path.join(directory, serverRecordName)
  const record: EmbeddedServerRecord = { port, pid: process.pid, dataDir: directory, token, startedAt: new Date().toISOString() }
  writeFileSync(recordFile, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 })
  return {
    url: embeddedDatabaseUrl(port),
    stop: async () => {
      // Only our own record: a server started since (after a crash of this one) keeps its.
      if (readServerRecord(directory)?.token === token) rmSync(recordFile, { force: true })
      await server.stop()
      await pglite.close()
    },
  }
}

/**
 * For command-line tools (tokens, seed, migrations): with no DATABASE_URL, find this
 * checkout's embedded database through its data directory's record and check, by the identity
 * the server gives, that the server at that port is really this directory's; start it in this
 * process when none runs. Sets DATABASE_URL for what the tool loads next, so import the
 * database client only after this. Refuses, saying whose it is, when another checkout's server
 * sits at the port: a tool that wrote there would change another newsroom.
 */
export async function findOwnEmbeddedDatabase(): Promise<EmbeddedDatabase | undefined> {
  if (process.env.DATABASE_URL) return undefined
  const directory = embeddedDataDir()
  const record = readServerRecord(directory)
  const port = configuredEmbeddedPort() ?? record?.port ?? derivedEmbeddedPort(directory)
  const identity = await embeddedIdentityAt(port)
  if (identity === undefined) {
    // Nothing listens there: this checkout's server is not running (a record left by a crash is stale).
    const embedded = await startEmbeddedDatabase({ dataDir: directory })
    process.env.DATABASE_URL = embedded.url
    return embedded
  }
  if (!record || identity?.token !== record.token) {
    const owner = identity ? identity.dataDir : 'another program (it does not say which directory it serves)'
    throw new EmbeddedDatabaseError(
      `The embedded database at ${embeddedHost}:${port} belongs to ${owner}, not to this checkout's ${directory}. ` +
        "Start this checkout's with npm run dev (or stop the other one), or set DATABASE_URL.",
    )
  }
  process.env.DATABASE_URL = embeddedDatabaseUrl(port)
  return undefined
}
