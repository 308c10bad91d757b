import { AsyncLocalStorage } from 'node:async_hooks'
import { ServiceUnavailableError } from '../errors.ts'
import { positive } from '../media/media-limits.ts'

// Bodies over the default limit (bulk imports, up to 32 MiB) cost several times their size in
// memory while they are read, parsed and written, and the production process runs with a
// bounded heap (npm start). So each process handles a few at a time; the rest wait their turn,
// and past a bound are refused with 503 and Retry-After rather than put the process at risk.
const concurrency = () => positive(process.env.LARGE_BODY_CONCURRENCY, 2)
const maxWaiting = 32
let running = 0
const waiting: (() => void)[] = []

/** Whether the work running now holds a slot (withLargeBodySlot) and has not stepped out of it. */
const holding = new AsyncLocalStorage<{ held: boolean }>()

async function take(refuseWhenFull: boolean): Promise<void> {
  if (running < concurrency()) running++
  else if (refuseWhenFull && waiting.length >= maxWaiting) {
    throw new ServiceUnavailableError(`${running + waiting.length} large requests are being handled by this instance; retry shortly.`, 2)
  } else await new Promise<void>((resolve) => waiting.push(resolve))
}

function give(): void {
  // A waiting request takes the slot over; otherwise it is freed.
  const next = waiting.shift()
  if (next) next()
  else running--
}

/** Runs `work` (reading a large body and answering it) when a slot is free. */
export async function withLargeBodySlot<T>(work: () => Promise<T>): Promise<T> {
  await take(true)
  const slot = { held: true }
  try {
    return await holding.run(slot, work)
  } finally {
    if (slot.held) give()
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
  give()
  try {
    return await work()
  } finally {
    await take(false)
    slot.held = true
  }
}
