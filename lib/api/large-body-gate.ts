import { AsyncLocalStorage } from 'node:async_hooks'
import { concurrencySlots } from '../concurrency-slots.ts'
import { positive } from '../media/media-limits.ts'

// Bodies over the default limit (bulk imports, up to 32 MiB) cost several times their size in
// memory while they are read, parsed and written, and the production process runs with a
// bounded heap (npm start). So each process handles a few at a time; the rest wait their turn,
// and past a bound are refused with 503 and Retry-After rather than put the process at risk.
const slots = concurrencySlots('large body gate', {
  limit: () => positive(process.env.LARGE_BODY_CONCURRENCY, 2),
  maxWaiting: 32,
  busy: (inUse) => `${inUse} large requests are being handled by this instance; retry shortly.`,
})

/** Whether the work running now holds a slot (withLargeBodySlot) and has not stepped out of it. */
const holding = new AsyncLocalStorage<{ held: boolean }>()

/** Runs `work` (reading a large body and answering it) when a slot is free; a client that leaves first (`abandoned`, the request's signal) leaves the line. */
export async function withLargeBodySlot<T>(work: () => Promise<T>, abandoned?: AbortSignal): Promise<T> {
  await slots.take(true, abandoned)
  const slot = { held: true }
  try {
    return await holding.run(slot, work)
  } finally {
    if (slot.held) slots.give()
  }
}

/**
 * Runs `work`, which waits on other servers (a bulk import's wire photos, a source_url) rather
 * than reading or writing a large body, with the caller's slot given to the next large request
 * meanwhile, and taken back (waiting its turn, never refused: the request was let in) before
 * the caller goes on to its writes. Held through the wait, one slow wire server made every
 * upload of the instance queue behind one import. Outside a slot, it simply runs `work`.
 */
export async function outsideLargeBodySlot<T>(work: () => Promise<T>): Promise<T> {
  const slot = holding.getStore()
  if (!slot?.held) return work()
  slot.held = false
  slots.give()
  try {
    return await work()
  } finally {
    await slots.take(false)
    slot.held = true
  }
}
