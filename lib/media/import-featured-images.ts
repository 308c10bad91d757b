import { DomainError } from '../errors.ts'
import type { Actor } from '../tenancy/actor.ts'
import type { ReceivedFile } from './receive-upload.ts'
import { withFetchSlot } from './fetch-gate.ts'
import { fetchSourceUrl, filenameFromUrl } from './fetch-source-url.ts'
import { createMedia } from './media-library.ts'
import { mediaImportFetchDeadlineMs, mediaMaxBytes } from './media-limits.ts'

/** What became of one featured_image_url: the library record it is, or why it is not one. */
export type ImportedImage = { mediaId: string } | { error: string }

/**
 * How the door runs work that waits on other servers: POST /v1/articles/bulk gives its
 * large-body slot to the next large request meanwhile (lib/api/large-body-gate.ts,
 * outsideLargeBodySlot). The domain only says which work that is.
 */
export type WhileWaitingOnOthers = <T>(work: () => Promise<T>) => Promise<T>

// A batch of 500 items may name 500 photos; a few fetches at once keep the wire's servers and
// this instance's image gate (one decode per new image) from being flooded by one request.
// Across requests, the fetch gate (lib/media/fetch-gate.ts) bounds them for the instance.
const fetchesAtOnce = 4

/**
 * The wire photos of a bulk import, each URL fetched once (as POST /v1/media's source_url: the
 * same SSRF rules, size and time limits) and kept through createMedia, which answers bytes the
 * newsroom already has with their existing record: two items naming one URL, or two URLs
 * serving the same bytes, share one media record. A URL that cannot be fetched, or whose bytes
 * are no image the library keeps, is an error for the items naming it only.
 *
 * The fetches wait on other servers, not on this process's memory: they run in
 * `whileWaitingOnOthers`, where the door gives its large-body slot to the next upload or import
 * meanwhile. They all end by
 * MEDIA_IMPORT_FETCH_DEADLINE_MS: a URL still being fetched or waiting its turn then fails its
 * items, saying it timed out, with nothing of it stored.
 */
export async function importFeaturedImages(actor: Actor, urls: Iterable<string>, whileWaitingOnOthers: WhileWaitingOnOthers = (work) => work()): Promise<Map<string, ImportedImage>> {
  const pending = [...new Set(urls)]
  const outcomes = new Map<string, ImportedImage>()
  if (pending.length === 0) return outcomes
  const deadline = Date.now() + mediaImportFetchDeadlineMs()
  const worker = async () => {
    for (let url = pending.shift(); url !== undefined; url = pending.shift()) {
      outcomes.set(url, await importOne(actor, url, deadline))
    }
  }
  await whileWaitingOnOthers(() => Promise.all(Array.from({ length: Math.min(fetchesAtOnce, pending.length) }, worker)))
  return outcomes
}

async function importOne(actor: Actor, url: string, deadline: number): Promise<ImportedImage> {
  let file: ReceivedFile
  try {
    file = await withFetchSlot(deadline, () => fetchSourceUrl(url, mediaMaxBytes(), deadline))
  } catch (error) {
    if (Date.now() >= deadline) return { error: timedOut(url) }
    return { error: reason(error) }
  }
  try {
    const { media } = await createMedia(actor, file, { filename: filenameFromUrl(url) })
    return { mediaId: media.id }
  } catch (error) {
    return { error: reason(error) }
  }
}

/** Refusals (private address, too large, not an image, a pixel bomb) name why; anything else is not the sender's to read. */
function reason(error: unknown): string {
  return error instanceof DomainError ? error.message : 'The image could not be fetched or stored; try again later.'
}

function timedOut(url: string): string {
  const seconds = mediaImportFetchDeadlineMs() / 1000
  return `featured_image_url ${url} timed out: this import's images are fetched within ${seconds} s in all, and this one was not fetched by then. Nothing was stored for it; send the item again (in a smaller import, or once the server answers faster).`
}
