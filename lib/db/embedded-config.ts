import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import path from 'node:path'

/**
 * Where the embedded PGlite database server of this checkout listens (lib/db/embedded-server.ts
 * starts it). Each data directory has a port of its own, so two checkouts on one machine never
 * share one: the port derived from the directory's absolute path, or any free port when that one
 * is taken, and the server records the one it got, with an identity, in the directory itself.
 * Everything that reaches the database without DATABASE_URL (the app, the CLI, Prisma's
 * commands) finds it through that record. EMBEDDED_DB_PORT overrides the port.
 */
export const embeddedHost = '127.0.0.1'

/** The file in the data directory where a running server records its port and identity. */
export const serverRecordName = 'newsroom-server.json'

/** What a running server writes into its data directory; the same identity is in the database (embedded-identity.ts). */
export type EmbeddedServerRecord = { port: number; pid: number; dataDir: string; token: string; startedAt: string }

export function embeddedDataDir(): string {
  return path.resolve(process.env.EMBEDDED_DB_DIR ?? '.data/pglite')
}

/** The port EMBEDDED_DB_PORT sets, if it does. */
export function configuredEmbeddedPort(): number | undefined {
  return process.env.EMBEDDED_DB_PORT ? Number(process.env.EMBEDDED_DB_PORT) : undefined
}

/**
 * This data directory's own port, from its absolute path: 10000–29999, below the range the
 * system hands out to outgoing connections, so a port chosen today is usually free tomorrow.
 */
export function derivedEmbeddedPort(dataDir: string): number {
  return 10_000 + (createHash('sha256').update(path.resolve(dataDir)).digest().readUInt32BE(0) % 20_000)
}

export function readServerRecord(dataDir: string): EmbeddedServerRecord | undefined {
  try {
    const record = JSON.parse(readFileSync(path.join(dataDir, serverRecordName), 'utf8')) as Partial<EmbeddedServerRecord>
    return typeof record.port === 'number' && typeof record.token === 'string' ? (record as EmbeddedServerRecord) : undefined
  } catch {
    return undefined
  }
}

/** Where this checkout's embedded database is (or would be) listening: the override, the running server's record, or the derived port. */
export function embeddedDatabasePort(dataDir = embeddedDataDir()): number {
  return configuredEmbeddedPort() ?? readServerRecord(dataDir)?.port ?? derivedEmbeddedPort(dataDir)
}

export function embeddedDatabaseUrl(port = embeddedDatabasePort()): string {
  return `postgresql://postgres:postgres@${embeddedHost}:${port}/postgres?sslmode=disable`
}
