import { processSingleton } from '../process-singleton.ts'
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
const gate = processSingleton('media fetch gate', () => ({ running: 0, waiting: [] as (() => void)[] }))

/** Runs `work` (one remote fetch) when a slot is free, or throws FetchTurnTimeoutError once `deadline` (ms since the epoch) passes first. */
export async function withFetchSlot<T>(deadline: number, work: () => Promise<T>): Promise<T> {
  if (Date.now() >= deadline) throw new FetchTurnTimeoutError()
  if (gate.running < mediaFetchConcurrency()) gate.running++
  else {
    await new Promise<void>((resolve, reject) => {
      const turn = () => {
        clearTimeout(timer)
        resolve()
      }
      const timer = setTimeout(() => {
        const at = gate.waiting.indexOf(turn)
        if (at >= 0) gate.waiting.splice(at, 1)
        reject(new FetchTurnTimeoutError())
      }, deadline - Date.now())
      gate.waiting.push(turn)
    })
  }
  try {
    return await work()
  } finally {
    const next = gate.waiting.shift()
    if (next) next()
    else gate.running--
  }
}
