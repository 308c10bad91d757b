import { mkdirSync } from 'node:fs'
import { connect } from 'node:net'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { PGLiteSocketServer } from '@electric-sql/pglite-socket'
import { embeddedDatabase, embeddedDatabaseUrl } from './embedded-config.ts'

const dataDir = () => path.resolve(process.env.EMBEDDED_DB_DIR ?? '.data/pglite')

export type EmbeddedDatabase = { url: string; stop: () => Promise<void> }

/**
 * Starts PGlite (PostgreSQL compiled to WebAssembly) on a local directory and serves it
 * over TCP, so the app, the CLI and Prisma's migrations all reach it through the same pg
 * path as real PostgreSQL. Tests pass their own directory and port.
 */
export async function startEmbeddedDatabase(options: { dataDir?: string; port?: number } = {}): Promise<EmbeddedDatabase> {
  const directory = options.dataDir ?? dataDir()
  const port = options.port ?? embeddedDatabase.port
  mkdirSync(directory, { recursive: true })
  const pglite = await PGlite.create(directory)
  const server = new PGLiteSocketServer({
    db: pglite,
    host: embeddedDatabase.host,
    port,
    // PGlite has one session. The socket server queues the connections' messages and lets one
    // connection keep the session while it is inside a transaction or an extended-query cycle
    // (Parse … Sync); the latter needs our patch (patches/@electric-sql+pglite-socket+*.patch).
    maxConnections: 32,
  })
  try {
    await server.start()
  } catch (error) {
    await pglite.close()
    throw new Error(
      `The embedded database could not listen on ${embeddedDatabase.host}:${port} ` +
        `(${(error as Error).message}). Is another copy running? Set EMBEDDED_DB_PORT to use another port.`,
    )
  }
  return {
    url: embeddedDatabaseUrl(port),
    stop: async () => {
      await server.stop()
      await pglite.close()
    },
  }
}

function isListening(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port })
    socket.setTimeout(1_000)
    socket.once('connect', () => { socket.destroy(); resolve(true) })
    socket.once('timeout', () => { socket.destroy(); resolve(false) })
    socket.once('error', () => resolve(false))
  })
}

/**
 * For command-line tools: with no DATABASE_URL, use the embedded server of a running
 * `npm run dev`, or start the embedded database in this process when none runs.
 */
export async function startEmbeddedDatabaseIfNeeded(): Promise<EmbeddedDatabase | undefined> {
  if (process.env.DATABASE_URL) return undefined
  if (await isListening(embeddedDatabase.host, embeddedDatabase.port)) return undefined
  return startEmbeddedDatabase()
}
