import { DomainError } from '../errors.ts'
import { tenantDb } from '../tenancy/tenant-db.ts'
import { imageOrder } from './article-images.ts'
import { describeRefusal, mediaPublishRefusal, type MediaRefusalReason } from './media-rights.ts'

export type UnpublishableMedia = { media_id: string; filename: string | null; missing: (MediaRefusalReason | 'not_in_library')[]; reason: string }

/**
 * The images of an article (its featured image and every <figure data-media-id> of its body,
 * `media_ids`) that may not be published now, each with what is missing, by mediaPublishRefusal:
 * the one rule. An id the library no longer has is refused too.
 */
export async function unpublishableMedia(tenantId: string, mediaIds: readonly string[], now: Date = new Date()): Promise<UnpublishableMedia[]> {
  if (mediaIds.length === 0) return []
  const rows = await tenantDb(tenantId).media.findMany({ where: { id: { in: [...mediaIds] } }, select: { id: true, filename: true, altText: true, embargoUntil: true, expiresAt: true } })
  const byId = new Map(rows.map((row) => [row.id, row]))
  return mediaIds.flatMap((id): UnpublishableMedia[] => {
    const media = byId.get(id)
    if (!media) return [{ media_id: id, filename: null, missing: ['not_in_library'], reason: 'it is not in the media library (deleted?)' }]
    const reasons = mediaPublishRefusal(media, now)
    return reasons.length === 0 ? [] : [{ media_id: id, filename: media.filename, missing: reasons, reason: describeRefusal(media, reasons) }]
  })
}

/** The 422 a publication gets while any of its images may not be published, naming each and why. */
export async function assertMediaPublishable(tenantId: string, mediaIds: readonly string[], now: Date = new Date()): Promise<void> {
  const refused = await unpublishableMedia(tenantId, mediaIds, now)
  if (refused.length === 0) return
  const list = refused.map((item) => `${item.filename ?? item.media_id} (${item.media_id}): ${item.reason}`).join('; ')
  throw new DomainError('media_not_publishable', `This article's images may not be published yet: ${list}. Fix them in the media library, then publish again.`, { media: refused })
}

type ArticleImages = { featuredMediaId: string | null; body: string | null }

/**
 * The images a write to a live article would add (its featured image and body figures after the
 * write, less those it shows already), in reading order. Images already live are left to the
 * licence-expiry sweep, which withholds them: refusing every later correction to the story's
 * text because of them would keep the error up, not the image down.
 */
export function imagesAddedByWrite(current: ArticleImages, next: Partial<ArticleImages>): string[] {
  const shown = new Set(imageOrder(current).map((image) => image.id))
  const after = imageOrder({
    featuredMediaId: next.featuredMediaId !== undefined ? next.featuredMediaId : current.featuredMediaId,
    body: next.body !== undefined ? next.body : current.body,
  })
  return after.map((image) => image.id).filter((id) => !shown.has(id))
}

/**
 * The publish rule for writes to a live article (PATCH, the portal's save, a revision's restore,
 * a bulk import's update): what the write brings into view must be publishable now, as
 * publishing itself asks (422 media_not_publishable, naming each image and what is missing).
 */
export async function assertLiveWritePublishable(tenantId: string, current: ArticleImages & { status: string }, next: Partial<ArticleImages>, now: Date = new Date()): Promise<void> {
  if (current.status !== 'published') return
  if (next.body === undefined && next.featuredMediaId === undefined) return
  await assertMediaPublishable(tenantId, imagesAddedByWrite(current, next), now)
}
