import { ServiceUnavailableError } from './errors.ts'
import { processSingleton } from './process-singleton.ts'

/**
 * A few slots for one kind of costly work in this process (rendering images, searching): the
 * work runs when a slot is free, the rest wait their turn in the order they came, and past
 * `maxWaiting` are refused with 503 and Retry-After rather than put the process (bounded heap)
 * or its neighbours at risk. The slots are the process's, however many copies of lib/ it loads
 * (processSingleton: `npm run dev` serves /v1 and the portal from two).
 */
export type ConcurrencySlots = {
  /** Runs `work` when a slot is free. */
  run<T>(work: () => Promise<T>): Promise<T>
  /** Waits for a slot (or throws 503 past maxWaiting when `refuseWhenFull`). */
  take(refuseWhenFull: boolean): Promise<void>
  /** Hands the slot to the next in line, or frees it. */
  give(): void
}

export function concurrencySlots(name: string, options: { limit: () => number; maxWaiting: number; busy: (inUse: number) => string }): ConcurrencySlots {
  const state = processSingleton(name, () => ({ running: 0, waiting: [] as (() => void)[] }))
  const take = async (refuseWhenFull: boolean) => {
    if (state.running < options.limit()) state.running++
    else if (refuseWhenFull && state.waiting.length >= options.maxWaiting) throw new ServiceUnavailableError(options.busy(state.running + state.waiting.length), 2)
    else await new Promise<void>((resolve) => state.waiting.push(resolve))
  }
  const give = () => {
    // The first in line takes the slot over; otherwise it is freed.
    const next = state.waiting.shift()
    if (next) next()
    else state.running--
  }
  return {
    take,
    give,
    async run(work) {
      await take(true)
      try {
        return await work()
      } finally {
        give()
      }
    },
  }
}
