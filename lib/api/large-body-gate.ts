import { AsyncLocalStorage } from 'node:async_hooks'
import { concurrencySlots } from '../concurrency-slots.ts'
import { ServiceUnavailableError } from '../errors.ts'
import { positive } from '../config/positive-setting.ts'
import { mediaUploadIdleMs } from '../media/media-limits.ts'
import { processSingleton } from '../process-singleton.ts'

// Bodies over the default limit (bulk imports, up to 32 MiB) cost several times their size in
// memory while they are read, parsed and written, and the production process runs with a
// bounded heap (npm start). So each process handles a few at a time; the rest wait their turn,
// and past a bound are refused with 503 and Retry-After rather than put the process at risk.
//
// The wait is bounded by MEDIA_UPLOAD_IDLE_MS, the pace rule's own span (body-pace.ts): a body
// that waited that long has sent nothing anyone read for as long as the rule lets a body send
// nothing. Unbounded, the line was the one place the rule did not reach: 33 requests that sent a
// byte and stopped sat in it unwatched, and were let go one stall limit per slot at a time once
// their turn came, refusing every upload and import of the instance for minutes (break66).
const slots = concurrencySlots('large body gate', {
  limit: () => positive(process.env.LARGE_BODY_CONCURRENCY, 2),
  maxWaiting: 32,
  busy: (inUse) => `${inUse} large requests are being handled by this instance; retry shortly.`,
  maxWaitMs: mediaUploadIdleMs,
  waitedTooLong: (waitedMs) => `This instance is busy with large uploads and imports, and this request's turn did not come within ${(waitedMs / 1000).toLocaleString('en')} s; nothing was read or stored. Retry shortly.`,
})

/**
 * Slots and places in line one client holds at once (LARGE_BODY_PER_CLIENT, default 8). A client
 * is an API token on /v1 or a signed-in member in the portal (every door to the gate is
 * authenticated). Past it, 429 with Retry-After: one client (a leaked key, a script gone wrong)
 * cannot fill the line (2 slots and 32 places at the defaults) alone and shut every other
 * newsroom member's uploads out, however many requests it sends.
 *
 * Why 8, not 2: the portal's Media page sends every dropped file at once (a browser keeps six
 * going to one host over HTTP/1.1, more over HTTP/2), and upload scripts send a few in parallel;
 * at 2, an editor's third dropped photo was refused. 8 covers a browser's six and still leaves
 * the line to at least five clients. An operator with few, trusted clients may lower it.
 */
const perClient = () => positive(process.env.LARGE_BODY_PER_CLIENT, 8)
const heldByClient = processSingleton('large body gate clients', () => new Map<string, number>())

/** Whether the work running now holds a slot (withLargeBodySlot) and has not stepped out of it. */
const holding = new AsyncLocalStorage<{ held: boolean }>()

/**
 * Runs `work` (reading a large body and answering it) when a slot is free; a client that leaves
 * first (`abandoned`, the request's signal) leaves the line, and one that waited
 * MEDIA_UPLOAD_IDLE_MS is refused with 503. `client` (`token:<id>`, `member:<id>`) counts
 * against LARGE_BODY_PER_CLIENT from the moment it joins the line until its answer is made.
 */
export async function withLargeBodySlot<T>(work: () => Promise<T>, abandoned?: AbortSignal, client?: string): Promise<T> {
  if (client === undefined) return inSlot(work, abandoned)
  const held = heldByClient.get(client) ?? 0
  const most = perClient()
  if (held >= most) {
    throw new ServiceUnavailableError(`This client already has ${held} large ${held === 1 ? 'request' : 'requests'} (uploads or imports) being handled or waiting on this instance, as many as one client may (LARGE_BODY_PER_CLIENT=${most}); send the next when one is answered.`, 2, { code: 'rate_limited' })
  }
  heldByClient.set(client, held + 1)
  try {
    return await inSlot(work, abandoned)
  } finally {
    const left = (heldByClient.get(client) ?? 1) - 1
    if (left > 0) heldByClient.set(client, left)
    else heldByClient.delete(client)
  }
}

async function inSlot<T>(work: () => Promise<T>, abandoned?: AbortSignal): Promise<T> {
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
