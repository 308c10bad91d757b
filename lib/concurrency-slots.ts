import { DomainError, ServiceUnavailableError } from './errors.ts'
import { processSingleton } from './process-singleton.ts'

/**
 * A few slots for one kind of costly work in this process (rendering images, large bodies, wire
 * fetches): the work runs when a slot is free, the rest wait their turn in the order they came,
 * and past `maxWaiting` are refused with 503 and Retry-After rather than put the process
 * (bounded heap) or its neighbours at risk. A waiter whose `abandoned` signal fires (its client
 * left, its deadline passed) leaves the line. The slots are the process's, however many copies
 * of lib/ it loads (processSingleton: `npm run dev` serves /v1 and the portal from two).
 */
export type ConcurrencySlots = {
  /** Runs `work` when a slot is free; `abandoned` (the request's signal) takes it out of the line if its client leaves first. */
  run<T>(work: () => Promise<T>, abandoned?: AbortSignal): Promise<T>
  /**
   * Waits for a slot (or throws 503 past maxWaiting when `refuseWhenFull`; request_aborted if
   * `abandoned` fires while waiting). A newcomer (`refuseWhenFull`) that waited `maxWaitMs` is
   * taken out of the line and refused with 503 (`waitedTooLong`); a taker that was already let in
   * (refuseWhenFull false: taking its slot back) waits as long as it takes.
   */
  take(refuseWhenFull: boolean, abandoned?: AbortSignal): Promise<void>
  /** Hands the slot to the next in line, or frees it. */
  give(): void
}

// What a waiter refused after its bound is told to wait before trying again.
const waitedRetryAfterSeconds = 5

// setTimeout fires after 1 ms for any delay past this: a bound of weeks (an operator's
// MEDIA_UPLOAD_IDLE_MS meant as "no limit", which body-pace.ts honours) refused every waiter at
// once (break70). Held to ~24.8 days instead, which is as good as no limit for a line.
const longestTimerMs = 2 ** 31 - 1

const leftTheLine = () => new DomainError('request_aborted', 'The client left before its turn came.')

export function concurrencySlots(
  name: string,
  options: {
    limit: () => number
    maxWaiting: number
    busy: (inUse: number) => string
    /** How long a newcomer may wait in line; unset, as long as it takes. */
    maxWaitMs?: () => number
    /** What a newcomer refused after maxWaitMs is told (503, Retry-After `retryAfterSeconds`). */
    waitedTooLong?: (waitedMs: number) => string
  },
): ConcurrencySlots {
  const state = processSingleton(name, () => ({ running: 0, waiting: [] as (() => void)[] }))
  const take = async (refuseWhenFull: boolean, abandoned?: AbortSignal) => {
    if (abandoned?.aborted) throw leftTheLine()
    if (state.running < options.limit()) state.running++
    else if (refuseWhenFull && state.waiting.length >= options.maxWaiting) throw new ServiceUnavailableError(options.busy(state.running + state.waiting.length), 2)
    else await waitInLine(abandoned, refuseWhenFull ? options.maxWaitMs?.() : undefined)
  }
  // A waiter whose client left leaves the line: kept there, it counted toward maxWaiting (a
  // crowd of clients that gave up got the live ones refused) and was handed a slot nobody needed.
  // A waiter that waited its bound leaves it too, with a 503: unbounded, the line was a place
  // where a client that sent a byte and stopped sat unwatched (the pace rule watches a body only
  // once it is read), and 33 of them refused every large request for minutes (break66).
  const waitInLine = (abandoned: AbortSignal | undefined, maxWaitMs: number | undefined) =>
    new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined
      const outOfLine = () => {
        clearTimeout(timer)
        abandoned?.removeEventListener('abort', leave)
        const place = state.waiting.indexOf(served)
        if (place >= 0) state.waiting.splice(place, 1)
      }
      const served = () => {
        clearTimeout(timer)
        abandoned?.removeEventListener('abort', leave)
        resolve()
      }
      const leave = () => {
        outOfLine()
        reject(leftTheLine())
      }
      state.waiting.push(served)
      abandoned?.addEventListener('abort', leave, { once: true })
      if (maxWaitMs !== undefined) {
        timer = setTimeout(() => {
          outOfLine()
          reject(new ServiceUnavailableError(options.waitedTooLong?.(maxWaitMs) ?? options.busy(state.running + state.waiting.length), waitedRetryAfterSeconds))
        }, Math.min(maxWaitMs, longestTimerMs))
      }
    })
  const give = () => {
    // The first in line takes the slot over; otherwise it is freed.
    const next = state.waiting.shift()
    if (next) next()
    else state.running--
  }
  return {
    take,
    give,
    async run(work, abandoned) {
      await take(true, abandoned)
      try {
        return await work()
      } finally {
        give()
      }
    },
  }
}
