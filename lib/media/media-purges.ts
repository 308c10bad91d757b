import { contentPurgeUrl } from '../content/purge-hook.ts'
import { articleSurrogateKey, listSurrogateKey } from '../content/surrogate-keys.ts'
import type { EventInput } from '../events/record-event.ts'

/** The surrogate key of an image's renditions and of every public page showing it. */
export const mediaSurrogateKey = (mediaId: string) => `media-${mediaId}`

/**
 * An image change's events plus the purge it calls for, committed with the change (as
 * withContentPurges does for articles): its renditions, and the pages and lists of the live
 * articles showing it. Without a purge hook (CONTENT_PURGE_URL) nothing is added.
 */
export function withMediaPurges(tenantId: string, mediaId: string, liveArticleIds: string[], events: EventInput[]): EventInput[] {
  if (!contentPurgeUrl()) return events
  const keys = [mediaSurrogateKey(mediaId), ...liveArticleIds.map(articleSurrogateKey), ...(liveArticleIds.length > 0 ? [listSurrogateKey(tenantId)] : [])]
  return [...events, { kind: 'content.purge_requested', data: { keys } }]
}
