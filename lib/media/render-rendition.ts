import type { Readable } from 'node:stream'
import { loadSharp } from './sharp.ts'
import type { Media } from '../db/generated/client.ts'
import { db } from '../db/client.ts'
import { withImageSlot } from './image-gate.ts'
import { mediaMaxPixels } from './media-limits.ts'
import { renditionPrefix } from './media-library.ts'
import { mediaWithheld } from './media-rights.ts'
import { cropBox, formatContentType, negotiateFormat, parseVariant, variantName, type RenditionFormat, type RenditionSpec } from './renditions.ts'
import { mediaStore } from './storage/media-storage.ts'

/** `showUntil`: the licence's end, when the image has one (the public route caches no longer than that). */
export type Rendition = { body: Buffer | Readable; bytes: number; contentType: string; format: RenditionFormat; tenantId: string; showUntil?: Date | null }

/**
 * One public rendition: null (a 404) unless the signature is ours and names the image's
 * current bytes, focal point and a width of the set, and the image may be shown now (not under
 * embargo, licence not expired: mediaWithheld). Rendered once per format with sharp under the
 * image gate and kept in the media store beside the original; every later request (and the
 * shared cache in front) reads the stored bytes.
 *
 * sharp writes no metadata unless asked, so no rendition carries the original's EXIF, IPTC or
 * XMP (GPS position, camera serial numbers); the image is turned upright first (EXIF orientation).
 */
export async function openRendition(mediaId: string, variant: string, signature: string, accept: string | null, now = new Date()): Promise<Rendition | null> {
  // Public and unauthenticated: the signed name is the credential; the id alone names the newsroom.
  const media = await db.media.findUnique({ where: { id: mediaId } })
  if (!media) return null
  const spec = parseVariant(media, variant, signature)
  if (!spec || mediaWithheld(media, now)) return null
  const rendition = await storedOrRendered(media, spec, negotiateFormat(accept))
  if (!rendition) return null
  // Reading the store (or rendering) takes time: the image may have been deleted, withheld or
  // given a new focal point meanwhile, its purge already sent. Served now, this answer would be
  // cached for a year after that purge; so the record is asked again, after the store answered.
  const after = await db.media.findUnique({ where: { id: mediaId } })
  if (!after || !parseVariant(after, variant, signature) || mediaWithheld(after, now)) {
    if (!Buffer.isBuffer(rendition.body)) rendition.body.destroy()
    return null
  }
  return { ...rendition, showUntil: after.expiresAt }
}

/**
 * One rendition's bytes, whoever may see them (the public route above, after its checks; the
 * portal's previews, for its signed-in members): read from the store, or rendered once and kept.
 */
export async function storedOrRendered(media: Media, spec: RenditionSpec, format: RenditionFormat): Promise<Rendition | null> {
  const key = `${renditionPrefix(media.tenantId, media.sha256)}${variantName(media, spec)}.${format}`
  const store = mediaStore()
  const stored = await store.get(key)
  if (stored) return { ...stored, contentType: formatContentType[format], format, tenantId: media.tenantId }
  const original = await store.get(media.storageKey)
  if (!original) return null
  const body = await withImageSlot(() => renderImage(original.body, { width: media.width, height: media.height }, { x: media.focalX, y: media.focalY }, spec, format))
  await store.putBuffer(key, body, formatContentType[format])
  // Rendering waits for a slot and takes time: the image may have been deleted meanwhile, its
  // blobs removed and its renditions purged. Served now, it would be cached for a year after its
  // purge; kept, it would be a blob nothing refers to. Read after the write, so a deletion either
  // committed before this read (seen: the rendition is removed again) or removes it itself.
  if (!(await stillStored(media))) {
    await store.deletePrefix(key).catch(() => undefined)
    return null
  }
  return { body, bytes: body.length, contentType: formatContentType[format], format, tenantId: media.tenantId }
}

/** Whether the library still has this image with these bytes (a record of its newsroom and hash, under its id). */
async function stillStored(media: Media): Promise<boolean> {
  const now = await db.media.findUnique({ where: { id: media.id }, select: { sha256: true } })
  return now?.sha256 === media.sha256
}

/** The resize itself: also what the bench compares with sharp alone. */
export async function renderImage(source: Readable | Buffer | string, size: { width: number; height: number }, focal: { x: number; y: number }, spec: RenditionSpec, format: RenditionFormat): Promise<Buffer> {
  const input = typeof source === 'string' || Buffer.isBuffer(source) ? source : undefined
  // autoOrient at load: the image is upright before anything else, so the crop box (computed on
  // the upright size the record keeps) lands where the focal point was set.
  const options = { limitInputPixels: mediaMaxPixels(), sequentialRead: true, autoOrient: true }
  const sharp = await loadSharp()
  let pipeline = input === undefined ? sharp(options) : sharp(input, options)
  if (!input) (source as Readable).pipe(pipeline)
  if (spec.crop) {
    // Exactly the size srcset advertises (renditionHeight): the box is already the crop's shape,
    // so naming both sides only settles rounding, never distorts.
    const box = cropBox(size, focal, spec.crop)
    pipeline = pipeline.extract(box).resize({ width: spec.width, height: Math.max(1, Math.round((spec.width * box.height) / box.width)), fit: 'fill', withoutEnlargement: true })
  } else {
    pipeline = pipeline.resize({ width: spec.width, withoutEnlargement: true })
  }
  // JPEG has no alpha: sharp would drop it and leave transparent pixels their (usually black)
  // colour. Transparent areas become white, the page colour a logo or a chart is drawn for.
  if (format === 'jpeg') pipeline = pipeline.flatten({ background: '#ffffff' })
  pipeline = format === 'avif' ? pipeline.avif({ quality: 55, effort: 2 }) : format === 'webp' ? pipeline.webp({ quality: 78 }) : pipeline.jpeg({ quality: 80, mozjpeg: true })
  return pipeline.toBuffer()
}
