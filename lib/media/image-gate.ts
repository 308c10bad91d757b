import { concurrencySlots } from '../concurrency-slots.ts'
import { mediaImageConcurrency } from './media-limits.ts'

// Decoding and resizing cost tens of MB of native memory each and a core's time; a burst of
// cold renditions must not take the process (bounded heap, npm start) or its neighbours down.
// So each process renders a few at a time, the rest wait, and past a bound get 503 with
// Retry-After, as large bodies do (lib/api/large-body-gate.ts). Uploads go through that gate.
// The slots are the process's (uploads come through /v1, renditions through /content: in
// `npm run dev` those are two copies of lib/), which concurrencySlots sees to.
const imageSlots = concurrencySlots('media image gate', {
  limit: mediaImageConcurrency,
  maxWaiting: 64,
  busy: (inUse) => `${inUse} images are being processed by this instance; retry shortly.`,
})

/** Runs `work` (sharp on one image) when a slot is free. */
export function withImageSlot<T>(work: () => Promise<T>): Promise<T> {
  return imageSlots.run(work)
}
