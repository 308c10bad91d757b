import { concurrencySlots } from '../concurrency-slots.ts'
import { mediaFetchConcurrency } from './media-limits.ts'

/** A wire photo's turn to be fetched did not come before its request's deadline. */
export class FetchTurnTimeoutError extends Error {
  constructor() {
    super('the fetch did not start before its deadline')
  }
}

// Each bulk import fetches four wire photos at a time, outside the large-body gate (the fetches
// wait on other servers, not on this process's memory). This bounds them across requests: a
// burst of imports naming slow servers holds a few sockets and temp files, not hundreds. A fetch
// waits its turn until its request's deadline, then gives up (its item fails, saying it timed
// out): no 503 of its own, the request's deadline already bounds the wait. The slots are the
// process's, as the image gate's are (lib/media/image-gate.ts).
// The line is the shared slots mechanism's (lib/concurrency-slots.ts), its wait bounded by the deadline.
const slots = concurrencySlots('media fetch gate', {
  limit: mediaFetchConcurrency,
  maxWaiting: Number.POSITIVE_INFINITY,
  busy: (inUse) => `${inUse} wire photos are being fetched by this instance.`,
})

/** Runs `work` (one remote fetch) when a slot is free, or throws FetchTurnTimeoutError once `deadline` (ms since the epoch) passes first. */
export async function withFetchSlot<T>(deadline: number, work: () => Promise<T>): Promise<T> {
  if (Date.now() >= deadline) throw new FetchTurnTimeoutError()
  // Node turns a timer past 2^31 - 1 ms (24.8 days) into 1 ms: a deadline further off (an
  // operator's "no deadline") waits that long at most instead.
  const expired = AbortSignal.timeout(Math.min(deadline - Date.now(), 2 ** 31 - 1))
  try {
    await slots.take(false, expired)
  } catch (error) {
    throw expired.aborted ? new FetchTurnTimeoutError() : error
  }
  try {
    return await work()
  } finally {
    slots.give()
  }
}
