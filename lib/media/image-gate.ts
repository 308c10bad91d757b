import { ServiceUnavailableError } from '../errors.ts'
import { mediaImageConcurrency } from './media-limits.ts'

// Decoding and resizing cost tens of MB of native memory each and a core's time; a burst of
// cold renditions must not take the process (bounded heap, npm start) or its neighbours down.
// So each process renders a few at a time, the rest wait, and past a bound get 503 with
// Retry-After, as large bodies do (lib/api/large-body-gate.ts). Uploads go through that gate.
const maxWaiting = 64
let running = 0
const waiting: (() => void)[] = []

/** Runs `work` (sharp on one image) when a slot is free. */
export async function withImageSlot<T>(work: () => Promise<T>): Promise<T> {
  if (running < mediaImageConcurrency()) running++
  else if (waiting.length >= maxWaiting) throw new ServiceUnavailableError(`${running + waiting.length} images are being processed by this instance; retry shortly.`, 2)
  else await new Promise<void>((resolve) => waiting.push(resolve))
  try {
    return await work()
  } finally {
    const next = waiting.shift()
    if (next) next()
    else running--
  }
}
