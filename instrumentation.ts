/**
 * Runs once when a Next server process starts (`next dev`, `next start`, the production custom
 * server): connects the outbox of Next's copy of lib/ to Inngest (lib/events/event-queue.ts), so
 * portal writes hand their events on like /v1 writes do.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME === 'nodejs') await import('./inngest/outbox-queue')
}
