/**
 * Starts the service: `tsx scripts/serve.ts dev|start`.
 * With no DATABASE_URL it runs the embedded PGlite database (data in .data/pglite), applies
 * migrations with `prisma migrate deploy` and the data migrations (lib/db/data-migrations), seeds an empty embedded database, then serves:
 * both run the app server (lib/server/app-server.ts), which answers /v1 from its route files and
 * hands the rest to Next: `start` with the production build, `dev` compiling and hot-reloading.
 */
import { ensureLocalSecrets } from '../lib/config/local-secrets.ts'
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../lib/db/embedded-server.ts'
import { startInngestDevServer } from './inngest-dev.ts'
// Connects this process's outbox to Inngest (lib/events/event-queue.ts): the server's /v1 writes
// and, through the shared registration, Next's copy of lib/ in the production server.
import '../inngest/outbox-queue.ts'
import { runPrisma } from './run-prisma.ts'

const mode = process.argv[2] === 'start' ? 'start' : 'dev'
const port = process.env.PORT ?? '3000'

async function main() {
  // Next reads NODE_ENV when it loads, and so do the logger and the security headers: set it
  // first, as `next start` and `next dev` would.
  ;(process.env as Record<string, string>).NODE_ENV = mode === 'start' ? 'production' : 'development'
  process.env.NEXT_TELEMETRY_DISABLED = '1'
  const startedAt = performance.now()
  ensureLocalSecrets()
  process.env.NEXTAUTH_URL ??= `http://localhost:${port}`

  let embedded: EmbeddedDatabase | undefined
  if (!process.env.DATABASE_URL) {
    embedded = await startEmbeddedDatabase()
    process.env.DATABASE_URL = embedded.url
    console.log(`Embedded database (PGlite) listening at ${embedded.url.replace(/:[^:@/]*@/, ':***@')}`)
  }

  await runPrisma(['migrate', 'deploy'])
  // Data migrations (application code, e.g. sanitising bodies stored before sanitise-on-write)
  // run here, on every deploy and on the embedded default alike; each runs once per database.
  const { runDataMigrations } = await import('../lib/db/data-migrations/sanitise-stored-bodies.ts')
  await runDataMigrations()
  const shouldSeed = process.env.SEED === 'true' || (embedded !== undefined && process.env.SEED !== 'false')
  if (shouldSeed) {
    const { seed } = await import('../prisma/seed.ts')
    await seed()
  }
  console.log(`Database ready in ${Math.round(performance.now() - startedAt)} ms; starting the ${mode === 'start' ? 'production' : 'development'} server on port ${port}.`)

  // In development, Inngest's dev server runs the durable jobs; it must start before Next so
  // that Next inherits INNGEST_DEV. In production, Inngest Cloud or a self-hosted server does.
  const inngest = mode === 'dev' ? await startInngestDevServer(`http://localhost:${port}`) : undefined

  const { startAppServer } = await import('../lib/server/app-server.ts')
  const { drainBeforeExit } = await import('../lib/server/drain.ts')
  // One server for both modes (lib/server/app-server.ts): /v1 from its route files, the rest
  // through Next, in development compiling on demand and hot-reloading the portal.
  const server = await startAppServer({ port: Number(port), dev: mode === 'dev' })
  console.log(
    mode === 'start'
      ? `Ready on http://localhost:${port} (production; /v1 served from its route files, the rest by Next).`
      : `Ready on http://localhost:${port} (development: the portal reloads as you edit; restart for changes to /v1 route files and lib/).`,
  )
  scheduleStartupSweep()
  // Requests in flight finish (for up to 10 s) before the process and its database stop.
  const stop = () => {
    let exiting = false
    const exit = () => {
      if (exiting) return
      exiting = true
      inngest?.stop()
      void drainBeforeExit()
        .then(() => embedded?.stop())
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

/** Events left in the outbox by a previous run (Inngest was down) go out once Inngest is up. */
function scheduleStartupSweep() {
  const timer = setTimeout(async () => {
    const { sweepOutbox } = await import('../lib/events/sweep-outbox.ts')
    const result = await sweepOutbox().catch((error: Error) => ({ sent: 0, remaining: true, error: error.message }))
    if (result.sent > 0) console.log(`Outbox: sent ${result.sent} waiting event(s) to Inngest.`)
  }, 10_000)
  timer.unref()
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error)
  process.exit(1)
})
