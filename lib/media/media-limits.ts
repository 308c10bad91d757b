/** The media library's limits, from the environment (docs/media.md lists them). */
import { positive } from '../config/positive-setting.ts'
const mebibyte = 1024 * 1024

/** The largest upload accepted (MEDIA_MAX_BYTES, default 50 MiB); larger is a 413, nothing stored. */
export const mediaMaxBytes = () => positive(process.env.MEDIA_MAX_BYTES, 50 * mebibyte)

/** Images with more pixels than this are refused as decompression bombs (MEDIA_MAX_PIXELS, default 100 megapixels). */
export const mediaMaxPixels = () => positive(process.env.MEDIA_MAX_PIXELS, 100_000_000)

/** How long fetching a `source_url` may take in all (MEDIA_FETCH_TIMEOUT_MS, default 20 s). */
export const mediaFetchTimeoutMs = () => positive(process.env.MEDIA_FETCH_TIMEOUT_MS, 20_000)

/**
 * How long a bulk import's featured_image_urls may take to fetch in all
 * (MEDIA_IMPORT_FETCH_DEADLINE_MS, default 60 s): up to 50 URLs, four at a time, each up to
 * MEDIA_FETCH_TIMEOUT_MS, would otherwise keep the request (and its sender) for minutes.
 */
export const mediaImportFetchDeadlineMs = () => positive(process.env.MEDIA_IMPORT_FETCH_DEADLINE_MS, 60_000)

/** Wire photos fetched at once by one process, whichever requests named them (MEDIA_FETCH_CONCURRENCY, default 8). */
export const mediaFetchConcurrency = () => positive(process.env.MEDIA_FETCH_CONCURRENCY, 8)

/** Renditions rendered at once by one process (MEDIA_IMAGE_CONCURRENCY, default 2): each costs tens of MB while libvips works. */
export const mediaImageConcurrency = () => positive(process.env.MEDIA_IMAGE_CONCURRENCY, 2)

/** How long an upload may send nothing before it is dropped (MEDIA_UPLOAD_IDLE_MS, default 30 s). */
export const mediaUploadIdleMs = () => positive(process.env.MEDIA_UPLOAD_IDLE_MS, 30_000)

/**
 * The least an upload must average once its first MEDIA_UPLOAD_IDLE_MS are over
 * (MEDIA_UPLOAD_MIN_BYTES_PER_SECOND, default 1,024): a phone on a poor line sends tens of KB a
 * second; a body under a KB a second after half a minute is holding a slot, not uploading.
 */
export const mediaUploadMinBytesPerSecond = () => positive(process.env.MEDIA_UPLOAD_MIN_BYTES_PER_SECOND, 1_024)

/** The types the library keeps; SVG is refused (it can carry script). */
export const acceptedContentTypes = ['image/jpeg', 'image/png', 'image/webp', 'image/avif', 'image/gif'] as const
export type AcceptedContentType = (typeof acceptedContentTypes)[number]
