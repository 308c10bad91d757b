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
export async function openPortalPreview(actor: Actor, mediaId: string, width: number, accept: string | null): Promise<Rendition | null> {
  const media = await getMedia(actor, mediaId)
  const offered = widthsFor(media)
  const chosen = offered.filter((offer) => offer <= width).pop() ?? offered[0]!
  return storedOrRendered(media, { width: chosen, crop: null }, negotiateFormat(accept))
}
