/**
 * What `npm run dev` (scripts/dev.ts) and `npm start` (scripts/start.ts) share: the process's
 * settings, the embedded database when no DATABASE_URL is set, the schema migrations (or, with
 * MIGRATE_ON_START=false, the check that the migration step ran: schema-migrations.ts), and a
 * shutdown that lets requests in flight finish. Kept free of the application's own modules:
 * the production server bundles this file, and the app's one copy of lib/ is Next's.
 */
import type { Server } from 'node:http'
import { ensureLocalSecrets, missingProductionSecrets } from '../lib/config/local-secrets.ts'
import type { EmbeddedDatabase } from '../lib/db/embedded-server.ts'
import { drainDelayMs, startDraining } from '../lib/server/lifecycle.ts'
import { prepareSchemaOnStart } from './schema-migrations.ts'

export type Mode = 'dev' | 'start'

export type BootedDatabase = { embedded: EmbeddedDatabase | undefined; seed: boolean }

/** Sets what Next and the app read when they load, then makes the database ready for them. */
export async function bootDatabase(mode: Mode, port: string): Promise<BootedDatabase> {
  // Next reads NODE_ENV when it loads, and so do the logger and the security headers: set it
  // first, as `next start` and `next dev` would.
  ;(process.env as Record<string, string>).NODE_ENV = mode === 'start' ? 'production' : 'development'
  process.env.NEXT_TELEMETRY_DISABLED = '1'
  const refusal = missingProductionSecrets()
  if (refusal) throw new Error(refusal)
  ensureLocalSecrets()
  process.env.NEXTAUTH_URL ??= `http://localhost:${port}`

  let embedded: EmbeddedDatabase | undefined
  if (!process.env.DATABASE_URL) {
    const { startEmbeddedDatabase } = await import('../lib/db/embedded-server.ts')
    embedded = await startEmbeddedDatabase()
    process.env.DATABASE_URL = embedded.url
    console.log(`Embedded database (PGlite) listening at ${embedded.url.replace(/:[^:@/]*@/, ':***@')}`)
  }
  // MIGRATE_ON_START=false (a rolling deploy's instances): the release's migration step has run
  // the migrations once (`npm run db:migrate`); the instance only checks that it has.
  await prepareSchemaOnStart(process.env.DATABASE_URL, { embedded: embedded !== undefined })
  const seed = process.env.SEED === 'true' || (embedded !== undefined && process.env.SEED !== 'false')
  return { embedded, seed }
}

/**
 * On SIGINT or SIGTERM: /readyz turns 503 at once and the instance keeps serving for
 * DRAIN_DELAY_MS, long enough for the load balancer's health checks to take it out of rotation;
 * then it stops accepting, lets requests in flight finish (up to 10 s), drains, exits.
 */
export function stopGracefully(server: Server, drain: () => Promise<void>, after: () => Promise<void> | void = () => undefined): void {
  let stopping = false
  const stop = () => {
    if (stopping) return
    stopping = true
    startDraining()
    setTimeout(close, drainDelayMs())
  }
  const close = () => {
    let exiting = false
    const exit = () => {
      if (exiting) return
      exiting = true
      void drain()
        .then(after)
        .catch(() => undefined)
        .then(() => process.exit(0))
    }
    server.close(exit)
    server.closeIdleConnections()
    setTimeout(exit, 10_000).unref()
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
}

export function exitOnFailure(error: unknown): never {
  console.error(error instanceof Error ? error.message : error)
  process.exit(1)
}
