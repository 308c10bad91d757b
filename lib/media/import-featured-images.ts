import { DomainError } from '../errors.ts'
import type { Actor } from '../tenancy/actor.ts'
import { fetchSourceUrl, filenameFromUrl } from './fetch-source-url.ts'
import { createMedia } from './media-library.ts'
import { mediaMaxBytes } from './media-limits.ts'

/** What became of one featured_image_url: the library record it is, or why it is not one. */
export type ImportedImage = { mediaId: string } | { error: string }

// A batch of 500 items may name 500 photos; a few fetches at once keep the wire's servers and
// this instance's image gate (one decode per new image) from being flooded by one request.
const fetchesAtOnce = 4

/**
 * The wire photos of a bulk import, each URL fetched once (as POST /v1/media's source_url: the
 * same SSRF rules, size and time limits) and kept through createMedia, which answers bytes the
 * newsroom already has with their existing record: two items naming one URL, or two URLs
 * serving the same bytes, share one media record. A URL that cannot be fetched, or whose bytes
 * are no image the library keeps, is an error for the items naming it only.
 */
export async function importFeaturedImages(actor: Actor, urls: Iterable<string>): Promise<Map<string, ImportedImage>> {
  const pending = [...new Set(urls)]
  const outcomes = new Map<string, ImportedImage>()
  const worker = async () => {
    for (let url = pending.shift(); url !== undefined; url = pending.shift()) {
      outcomes.set(url, await importOne(actor, url))
    }
  }
  await Promise.all(Array.from({ length: Math.min(fetchesAtOnce, pending.length) }, worker))
  return outcomes
}

async function importOne(actor: Actor, url: string): Promise<ImportedImage> {
  try {
    const file = await fetchSourceUrl(url, mediaMaxBytes())
    const { media } = await createMedia(actor, file, { filename: filenameFromUrl(url) })
    return { mediaId: media.id }
  } catch (error) {
    // Refusals (private address, too large, not an image, a pixel bomb) name why; anything else
    // is not the sender's to read.
    if (error instanceof DomainError) return { error: error.message }
    return { error: 'The image could not be fetched or stored; try again later.' }
  }
}
