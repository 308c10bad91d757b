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
 * over TCP, so the app reaches it through the same adapter-pg path as real PostgreSQL.
 */
export async function startEmbeddedDatabase(): Promise<EmbeddedDatabase> {
  mkdirSync(dataDir(), { recursive: true })
  const pglite = await PGlite.create(dataDir())
  const server = new PGLiteSocketServer({
    db: pglite,
    host: embeddedDatabase.host,
    port: embeddedDatabase.port,
    // PGlite is single-session; the server queues statements and pins open transactions.
    maxConnections: 32,
  })
  try {
    await server.start()
  } catch (error) {
    await pglite.close()
    throw new Error(
      `The embedded database could not listen on ${embeddedDatabase.host}:${embeddedDatabase.port} ` +
        `(${(error as Error).message}). Is another copy running? Set EMBEDDED_DB_PORT to use another port.`,
    )
  }
  return {
    url: embeddedDatabaseUrl(),
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
