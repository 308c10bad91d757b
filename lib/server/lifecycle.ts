/**
 * How the process that hosts the app asks it to finish its work before exiting. The app's
 * state (the request log's buffer, events being handed to the queue) lives in the copy of lib/
 * that Next's build loaded; the production server's own code is bundled apart from it
 * (scripts/build-server.ts) and must not load a second copy to reach it. So the app offers its
 * drain here, from instrumentation.ts, under a registered symbol both sides can name.
 */
type Drain = () => Promise<void>
const drainKey = Symbol.for('newsroom.drain-before-exit')
const slot = globalThis as unknown as { [drainKey]?: Drain }

export function offerDrain(drain: Drain): void {
  slot[drainKey] = drain
}

/** Runs the drain the app offered, if it did; resolves either way. */
export async function drainOfferedWork(): Promise<void> {
  await slot[drainKey]?.().catch(() => undefined)
}

/**
 * Whether this process is stopping: set on SIGTERM (scripts/boot.ts), read by /readyz, which then
 * answers 503 so the load balancer takes the instance out of rotation while it still serves,
 * before its listener closes. Under a registered symbol for the same reason as the drain.
 */
const drainingKey = Symbol.for('newsroom.draining')
const drainingSlot = globalThis as unknown as { [drainingKey]?: boolean }

export function startDraining(): void {
  drainingSlot[drainingKey] = true
}

export function isDraining(): boolean {
  return drainingSlot[drainingKey] === true
}

/** How long a stopping instance serves on while /readyz says 503 (DRAIN_DELAY_MS; 0 closes at once). */
export function drainDelayMs(): number {
  const value = Number(process.env.DRAIN_DELAY_MS ?? 0)
  return Number.isFinite(value) && value > 0 ? value : 0
}
