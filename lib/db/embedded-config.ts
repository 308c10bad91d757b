/** Where the embedded PGlite database server listens (lib/db/embedded-server.ts starts it). */
export const embeddedDatabase = {
  host: '127.0.0.1',
  port: Number(process.env.EMBEDDED_DB_PORT ?? 54329),
}

export function embeddedDatabaseUrl(port = embeddedDatabase.port): string {
  return `postgresql://postgres:postgres@${embeddedDatabase.host}:${port}/postgres?sslmode=disable`
}
