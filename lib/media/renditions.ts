import { createHmac, timingSafeEqual } from 'node:crypto'
import type { Media } from '../db/generated/client.ts'

/** The widths renditions come in: a fixed set, so nobody can make the service render arbitrary sizes. */
export const renditionWidths = [320, 640, 960, 1280, 1920] as const

/** Aspect-ratio crops (around the focal point) a site may ask for besides the image's own shape. */
export const renditionCrops = ['1x1', '4x3', '16x9'] as const
export type RenditionCrop = (typeof renditionCrops)[number]

export type RenditionFormat = 'avif' | 'webp' | 'jpeg'

export type RenditionSpec = { width: number; crop: RenditionCrop | null }

type MediaForUrl = Pick<Media, 'id' | 'sha256' | 'width' | 'height' | 'focalX' | 'focalY'>

// An empty MEDIA_URL_SECRET is unset (docs/media.md: default NEXTAUTH_SECRET), never an empty key.
const secret = () => `newsroom media renditions\0${process.env.MEDIA_URL_SECRET || process.env.NEXTAUTH_SECRET || ''}`

/**
 * The widths a shape of an image is offered in: those of the set not wider than the pixels it
 * has (the crop box's for a crop, the image's own otherwise), or that width when it is smaller
 * than all. Renditions are never enlarged, so a width past the box would be served smaller than
 * srcset says.
 */
export function widthsFor(media: Pick<Media, 'width' | 'height' | 'focalX' | 'focalY'>, crop: RenditionCrop | null = null): number[] {
  const available = crop ? cropBox(media, { x: media.focalX, y: media.focalY }, crop).width : media.width
  const widths = renditionWidths.filter((width) => width <= available)
  return widths.length > 0 ? widths : [available]
}

/**
 * A rendition's name: the original's content hash, the focal point and the size. A new upload or
 * focal point is a new name, so a name always means the same bytes and is cached for a year.
 */
export function variantName(media: MediaForUrl, spec: RenditionSpec): string {
  const focal = `${Math.round(media.focalX * 1000)}_${Math.round(media.focalY * 1000)}`
  return `${media.sha256.slice(0, 16)}-f${focal}-w${spec.width}${spec.crop ? `-c${spec.crop}` : ''}`
}

function sign(mediaId: string, variant: string): string {
  return createHmac('sha256', secret()).update(`${mediaId}/${variant}`).digest('base64url').slice(0, 22)
}

const publicBase = () => (process.env.MEDIA_PUBLIC_BASE_URL ?? '').replace(/\/$/, '')

/** The signed, immutable URL of one rendition (format chosen per request by Accept). */
export function renditionUrl(media: MediaForUrl, spec: RenditionSpec): string {
  const variant = variantName(media, spec)
  return `${publicBase()}/content/v1/media/${media.id}/${variant}/${sign(media.id, variant)}`
}

export type RenditionLink = { width: number; height: number; crop: RenditionCrop | null; url: string }

/** The URLs of one shape (the image's own, or a crop) in every width it is offered in. */
export function renditionUrls(media: MediaForUrl, crop: RenditionCrop | null = null): RenditionLink[] {
  return widthsFor(media, crop).map((width) => ({ width, height: renditionHeight(media, { width, crop }), crop, url: renditionUrl(media, { width, crop }) }))
}

/** Every rendition a record offers: the image's own shape, then each crop around the focal point. */
export function allRenditionUrls(media: MediaForUrl): RenditionLink[] {
  return [null, ...renditionCrops].flatMap((crop) => renditionUrls(media, crop))
}

/** The height a rendition is served at (renderImage resizes a crop to exactly this). */
export function renditionHeight(media: Pick<Media, 'width' | 'height' | 'focalX' | 'focalY'>, spec: RenditionSpec): number {
  if (spec.crop) {
    const box = cropBox(media, { x: media.focalX, y: media.focalY }, spec.crop)
    return Math.max(1, Math.round((spec.width * box.height) / box.width))
  }
  return Math.max(1, Math.round((spec.width * media.height) / media.width))
}

/**
 * Reads a rendition path's variant back, checking its signature and that it names this
 * media's current bytes and focal point; null when anything does not match (answered 404).
 */
export function parseVariant(media: MediaForUrl, variant: string, signature: string): RenditionSpec | null {
  const expected = sign(media.id, variant)
  const given = Buffer.from(signature)
  if (given.length !== expected.length || !timingSafeEqual(given, Buffer.from(expected))) return null
  const match = /^([0-9a-f]{16})-f(\d{1,4})_(\d{1,4})-w(\d{1,5})(?:-c(1x1|4x3|16x9))?$/.exec(variant)
  if (!match) return null
  const spec: RenditionSpec = { width: Number(match[4]), crop: (match[5] as RenditionCrop | undefined) ?? null }
  // A signed name for older bytes or an older focal point: that rendition no longer exists.
  if (variantName(media, spec) !== variant) return null
  if (!widthsFor(media, spec.crop).includes(spec.width)) return null
  return spec
}

/**
 * The format a client gets, by its Accept's q-values (RFC 9110 §12.5.1): AVIF or WebP only when
 * named explicitly with q > 0 (a bare image/* or *\/* is sent by clients that cannot decode
 * them), JPEG at the q of its own entry, else image/*, else *\/* (1 when Accept says nothing).
 * The highest q wins; on a tie the smaller format (AVIF, then WebP). JPEG is the answer when
 * nothing else is acceptable, even refused: every client can show it, a 406 helps nobody.
 */
export function negotiateFormat(accept: string | null): RenditionFormat {
  const quality = new Map<string, number>()
  for (const entry of (accept ?? '').toLowerCase().split(',')) {
    const [range, ...params] = entry.split(';').map((part) => part.trim())
    if (!range) continue
    const q = params.find((param) => /^q\s*=/.test(param))
    const value = q === undefined ? 1 : Number(q.replace(/^q\s*=\s*/, ''))
    // The first entry for a range counts; a malformed q is a refusal, not a preference.
    if (!quality.has(range)) quality.set(range, Number.isFinite(value) && value >= 0 && value <= 1 ? value : 0)
  }
  const jpegQ = quality.get('image/jpeg') ?? quality.get('image/*') ?? quality.get('*/*') ?? (quality.size === 0 ? 1 : 0)
  const candidates: [RenditionFormat, number][] = [
    ['avif', quality.get('image/avif') ?? 0],
    ['webp', quality.get('image/webp') ?? 0],
    ['jpeg', jpegQ],
  ]
  const [best, q] = candidates.reduce((chosen, candidate) => (candidate[1] > chosen[1] ? candidate : chosen))
  return q > 0 ? best : 'jpeg'
}

export const formatContentType: Record<RenditionFormat, string> = { avif: 'image/avif', webp: 'image/webp', jpeg: 'image/jpeg' }

/**
 * The crop box (in the upright original's pixels) of an aspect-ratio crop: as large as fits,
 * centred on the focal point as far as the edges allow.
 */
export function cropBox(size: { width: number; height: number }, focal: { x: number; y: number }, crop: RenditionCrop): { left: number; top: number; width: number; height: number } {
  const [rw, rh] = crop.split('x').map(Number) as [number, number]
  let width = size.width
  let height = Math.round((width * rh) / rw)
  if (height > size.height) {
    height = size.height
    width = Math.round((height * rw) / rh)
  }
  const left = Math.min(Math.max(0, Math.round(focal.x * size.width - width / 2)), size.width - width)
  const top = Math.min(Math.max(0, Math.round(focal.y * size.height - height / 2)), size.height - height)
  return { left, top, width, height }
}

/**
 * A year, immutable: the URL always means the same bytes. Not past a licence's end, though: our
 * purge reaches the shared cache we are told of (CONTENT_PURGE_URL), never a CDN before it or a
 * reader's browser, which would keep showing the image for a year after the licence ended.
 */
export function renditionCacheControl(showUntil: Date | null): string {
  if (!showUntil) return 'public, max-age=31536000, immutable'
  const seconds = Math.max(0, Math.min(31_536_000, Math.floor((showUntil.getTime() - Date.now()) / 1000)))
  return `public, max-age=${seconds}`
}
