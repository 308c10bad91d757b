import type { Actor } from '../tenancy/actor.ts'
import { getMedia } from './media-library.ts'
import { storedOrRendered, type Rendition } from './render-rendition.ts'
import { negotiateFormat, widthsFor } from './renditions.ts'

/**
 * An image as the portal shows it to a signed-in member (the library's grid, the focal point
 * picker, the editor's pickers): the uncropped rendition of the widest offered width up to
 * `width`. Unlike the public rendition route it shows images under embargo or past their licence
 * too: the newsroom must see what it may not publish. Tenant-scoped (getMedia: another
 * newsroom's id is a 404), metadata stripped like every rendition.
 */
export async function openPortalPreview(actor: Actor, mediaId: string, width: number, accept: string | null, ifNoneMatch: string | null = null): Promise<PortalPreview> {
  const media = await getMedia(actor, mediaId)
  const offered = widthsFor(media)
  const chosen = offered.filter((offer) => offer <= width).pop() ?? offered[0]!
  const format = negotiateFormat(accept)
  // The bytes follow from the image's content, the width and the format alone (uncropped), so
  // they name the version; the browser asks again each time, and a deleted image is a 404 at once.
  const etag = `"${media.sha256.slice(0, 32)}-w${chosen}-${format}"`
  if (ifNoneMatch?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)) return { etag, rendition: 'not_modified' }
  return { etag, rendition: await storedOrRendered(media, { width: chosen, crop: null }, format) }
}

/** A preview's validator and its bytes; 'not_modified' when the browser's copy (If-None-Match) is current. */
export type PortalPreview = { etag: string; rendition: Rendition | null | 'not_modified' }
