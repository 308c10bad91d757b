import { ServiceUnavailableError } from '../errors.ts'

// Bodies over the default limit (bulk imports, up to 32 MiB) cost several times their size in
// memory while they are read, parsed and written, and the production process runs with a
// bounded heap (npm start). So each process handles a few at a time; the rest wait their turn,
// and past a bound are refused with 503 and Retry-After rather than put the process at risk.
const concurrency = () => Math.max(1, Number(process.env.LARGE_BODY_CONCURRENCY ?? 2))
const maxWaiting = 32
let running = 0
const waiting: (() => void)[] = []

/** Runs `work` (reading a large body and answering it) when a slot is free. */
export async function withLargeBodySlot<T>(work: () => Promise<T>): Promise<T> {
  if (running < concurrency()) running++
  else if (waiting.length >= maxWaiting) {
    throw new ServiceUnavailableError(`${running + waiting.length} large requests are being handled by this instance; retry shortly.`, 2)
  } else await new Promise<void>((resolve) => waiting.push(resolve))
  try {
    return await work()
  } finally {
    // A waiting request takes the slot over; otherwise it is freed.
    const next = waiting.shift()
    if (next) next()
    else running--
  }
}
