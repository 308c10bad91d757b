/**
 * `npm run dev`: the same app server as production (lib/server/app-server.ts) with Next in
 * development mode: the portal compiles on demand and reloads as you edit; /v1 runs from its
 * route files through tsx (restart for /v1 and lib/ changes). With no DATABASE_URL it runs the
 * embedded PGlite database (data in .data/pglite) and seeds it on first start.
 */
// Connects this process's outbox to Inngest (lib/events/event-queue.ts) for the /v1 writes,
// which run in tsx's copy of lib/ here; Next's copy registers through instrumentation.ts.
import './record-native-date.ts'
import '../inngest/outbox-queue.ts'
import { drainBeforeExit } from '../lib/server/drain.ts'
import { bootDatabase, exitOnFailure, stopGracefully } from './boot.ts'
import { startInngestDevServer } from './inngest-dev.ts'
import { prepareDatabase } from './prepare-database.ts'

const port = process.env.PORT ?? '3000'

async function main() {
  const startedAt = performance.now()
  const { embedded, seed } = await bootDatabase('dev', port)
  await prepareDatabase({ seed })
  console.log(`Database ready in ${Math.round(performance.now() - startedAt)} ms; starting the development server on port ${port}.`)

  // Inngest's dev server runs the durable jobs; it must start before Next so that Next
  // inherits INNGEST_DEV. In production, Inngest Cloud or a self-hosted server does.
  const inngest = await startInngestDevServer(`http://localhost:${port}`)
  const { startAppServer } = await import('../lib/server/app-server.ts')
  const server = await startAppServer({ port: Number(port), dev: true })
  // Also started by instrumentation.ts in Next's copy of lib/; one run per process either way.
  const { startDataMigrationsInBackground } = await import('../lib/db/data-migrations/background-data-migrations.ts')
  void startDataMigrationsInBackground()
  console.log(`Ready on http://localhost:${port} (development: the portal reloads as you edit; restart for changes to /v1 route files and lib/).`)
  stopGracefully(
    server,
    async () => {
      inngest?.stop()
      await drainBeforeExit()
    },
    () => embedded?.stop(),
  )
}

main().catch(exitOnFailure)
