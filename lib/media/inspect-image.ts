import exifr from 'exifr'
import { loadSharp, type Metadata } from './sharp.ts'
import { DomainError } from '../errors.ts'
import type { AcceptedContentType } from './media-limits.ts'

/**
 * The type of an upload from its first bytes (never from its name or declared type), or null
 * for anything the library does not keep: SVG and other text formats included.
 */
export function sniffImageType(head: Buffer): AcceptedContentType | null {
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg'
  if (head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png'
  if (head.subarray(0, 6).toString('latin1') === 'GIF87a' || head.subarray(0, 6).toString('latin1') === 'GIF89a') return 'image/gif'
  if (head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp'
  if (head.subarray(4, 8).toString('latin1') === 'ftyp' && ['avif', 'avis'].includes(head.subarray(8, 12).toString('latin1'))) return 'image/avif'
  return null
}

export class UnsupportedImageTypeError extends DomainError {
  constructor() {
    super('unsupported_image_type', 'The file is not a JPEG, PNG, WebP, AVIF or GIF image (SVG is refused: it can carry script). Nothing was stored.')
  }
}

export type ImageFacts = { width: number; height: number }

/**
 * Decodes the whole image once (under the image gate, by the caller) so that a corrupt or
 * truncated file, or one with more pixels than `maxPixels` (a decompression bomb, judged from
 * the header before any pixel is decoded), is a 422 at upload rather than a broken rendition later.
 */
export async function checkImage(file: string, maxPixels: number): Promise<ImageFacts> {
  const sharp = await loadSharp()
  let meta: Metadata
  try {
    meta = await sharp(file, { limitInputPixels: false }).metadata()
  } catch {
    throw new DomainError('image_unreadable', 'The image could not be read: the file is corrupt or not an image. Nothing was stored.')
  }
  const width = meta.autoOrient?.width ?? meta.width ?? 0
  const height = meta.autoOrient?.height ?? meta.height ?? 0
  const pages = meta.pages ?? 1
  if (width * height * pages > maxPixels) {
    throw new DomainError('image_unreadable', `The image has ${width}×${height}${pages > 1 ? `×${pages} frames` : ''} pixels, more than this newsroom accepts (${maxPixels.toLocaleString('en')}, MEDIA_MAX_PIXELS). Nothing was stored.`)
  }
  try {
    // failOn 'error': a truncated JPEG decodes with a warning by default; here it is refused.
    await sharp(file, { failOn: 'error', limitInputPixels: maxPixels, sequentialRead: true }).resize(32, 32, { fit: 'inside' }).raw().toBuffer()
  } catch {
    throw new DomainError('image_unreadable', 'The image could not be decoded: the file is corrupt or truncated. Nothing was stored.')
  }
  if (!width || !height) throw new DomainError('image_unreadable', 'The image has no size. Nothing was stored.')
  return { width, height }
}

/** What the photographer's software wrote: fills the record's empty fields on upload. */
export type EmbeddedMetadata = { caption?: string; credit?: string; copyright?: string; takenAt?: Date }

// Control characters (NUL above all: PostgreSQL text cannot hold it) come from padded or
// mis-encoded fields of the photographer's software; tab and line breaks are text.
const controls = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g

/** The first value that is text once cleaned, cut to `max`: the limit the API puts on that field (media-schemas.ts), so the record read can be sent back. */
const text = (max: number, ...values: unknown[]): string | undefined => {
  for (const value of values) {
    const found = Array.isArray(value) ? value.find((entry) => typeof entry === 'string') : value
    const raw = typeof found === 'string' ? found : found && typeof found === 'object' && 'value' in found && typeof found.value === 'string' ? found.value : undefined
    const cleaned = raw?.replace(controls, '').trim()
    // Cut in UTF-16 units (what the schema counts), never between the halves of a surrogate pair.
    if (cleaned) return cleaned.slice(0, max).replace(/[\uD800-\uDBFF]$/, '').trim()
  }
  return undefined
}

// The EXIF standard writes an unknown date as '0000:00:00 00:00:00' (a camera whose clock was
// never set) or as blanks; exifr revives both with new Date(0, -1, 0, …): 30 November 1899,
// midnight, local time. That is no date taken, and the next candidate is asked instead. No
// photograph is older than 1826 (Niépce's first) either.
const unknownExifDate = new Date(0, -1, 0).getTime()
const firstPhotograph = Date.UTC(1826, 0, 1)
const photographed = (value: unknown): value is Date =>
  value instanceof Date && !Number.isNaN(value.getTime()) && value.getTime() !== unknownExifDate && value.getTime() >= firstPhotograph

/**
 * Reads caption, credit, copyright and date taken from IPTC, XMP and EXIF, in that order of
 * preference (IPTC is what wire services fill). A file whose metadata cannot be parsed simply
 * fills nothing.
 */
export async function readEmbeddedMetadata(file: string): Promise<EmbeddedMetadata> {
  let tags: Record<string, unknown> | undefined
  try {
    tags = await exifr.parse(file, { tiff: true, exif: true, gps: false, iptc: true, xmp: true, icc: false, jfif: false, ihdr: false, mergeOutput: true, reviveValues: true })
  } catch {
    return {}
  }
  if (!tags) return {}
  const takenAt = [tags.DateTimeOriginal, tags.CreateDate, tags.DateCreated].find(photographed)
  return {
    caption: text(2_000, tags.Caption, tags['Caption-Abstract'], tags.description, tags.ImageDescription),
    credit: text(300, tags.Credit, tags.Byline, tags['By-line'], tags.creator, tags.Artist),
    copyright: text(300, tags.CopyrightNotice, tags.rights, tags.Copyright),
    takenAt,
  }
}
