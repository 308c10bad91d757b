/**
 * Runs once when a Next server process starts (the production server, `npm run dev`, `next
 * start`), in Next's copy of lib/ — in production the only copy, which the /v1 route modules
 * share (lib/server/v1-route-modules.ts). It connects the outbox to Inngest, offers the
 * hosting server a way to drain the app's buffered work before exit, sends events an
 * earlier run left in the outbox, and starts the data migrations' backfills, which run in
 * batches while the server serves (lib/db/data-migrations/background-data-migrations.ts).
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== 'nodejs' || process.env.NEXT_PHASE === 'phase-production-build') return
  await import('./inngest/outbox-queue')
  const [{ offerDrain }, { drainBeforeExit }, { scheduleStartupSweep }, { startDataMigrationsInBackground }] = await Promise.all([
    import('./lib/server/lifecycle'),
    import('./lib/server/drain'),
    import('./lib/events/sweep-outbox'),
    import('./lib/db/data-migrations/background-data-migrations'),
  ])
  offerDrain(drainBeforeExit)
  scheduleStartupSweep()
  void startDataMigrationsInBackground()
}
