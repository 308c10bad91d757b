import { ServiceUnavailableError } from '../errors.ts'
import { processSingleton } from '../process-singleton.ts'
import { mediaImageConcurrency } from './media-limits.ts'

// Decoding and resizing cost tens of MB of native memory each and a core's time; a burst of
// cold renditions must not take the process (bounded heap, npm start) or its neighbours down.
// So each process renders a few at a time, the rest wait, and past a bound get 503 with
// Retry-After, as large bodies do (lib/api/large-body-gate.ts). Uploads go through that gate.
// The slots are the process's (uploads come through /v1, renditions through /content: in
// `npm run dev` those are two copies of lib/), so they live in processSingleton.
const maxWaiting = 64
const gate = processSingleton('media image gate', () => ({ running: 0, waiting: [] as (() => void)[] }))

/** Runs `work` (sharp on one image) when a slot is free. */
export async function withImageSlot<T>(work: () => Promise<T>): Promise<T> {
  if (gate.running < mediaImageConcurrency()) gate.running++
  else if (gate.waiting.length >= maxWaiting) throw new ServiceUnavailableError(`${gate.running + gate.waiting.length} images are being processed by this instance; retry shortly.`, 2)
  else await new Promise<void>((resolve) => gate.waiting.push(resolve))
  try {
    return await work()
  } finally {
    const next = gate.waiting.shift()
    if (next) next()
    else gate.running--
  }
}
