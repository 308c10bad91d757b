import path from 'node:path'

/** Where the embedded PGlite database keeps its files, and where its server listens. */
export const embeddedDatabase = {
  dataDir: path.resolve(process.env.EMBEDDED_DB_DIR ?? '.data/pglite'),
  host: '127.0.0.1',
  port: Number(process.env.EMBEDDED_DB_PORT ?? 54329),
}

export function embeddedDatabaseUrl(): string {
  return `postgresql://postgres:postgres@${embeddedDatabase.host}:${embeddedDatabase.port}/postgres?sslmode=disable`
}
