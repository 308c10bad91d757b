import { DomainError } from '../errors.ts'
import { tenantDb } from '../tenancy/tenant-db.ts'
import type { SqlTransaction } from '../db/sql-transaction.ts'
import { postgresError } from '../db/sql-state.ts'
import { imageOrder } from './article-images.ts'
import { describeRefusal, mediaPublishRefusal, type MediaRefusalReason } from './media-rights.ts'

export type UnpublishableMedia = { media_id: string; filename: string | null; missing: (MediaRefusalReason | 'not_in_library')[]; reason: string }

type JudgedMedia = { id: string; filename: string; altText: string | null; embargoUntil: Date | null; expiresAt: Date | null }

/**
 * The images of an article (its featured image and every <figure data-media-id> of its body,
 * `media_ids`) that may not be published now, each with what is missing, by mediaPublishRefusal:
 * the one rule. An id the library no longer has is refused too.
 *
 * Given the write's transaction, the images' rows are read FOR SHARE: until the write commits,
 * nobody can delete them or clear what the rule asked of them (a deletion or an edit waits, then
 * sees the article live and refuses: lib/media/media-library.ts). Without it, the answer is a
 * reading for display (the desk, a bulk import's early check), and the write that follows must
 * judge again under the lock.
 */
export async function unpublishableMedia(tenantId: string, mediaIds: readonly string[], now: Date = new Date(), tx?: SqlTransaction): Promise<UnpublishableMedia[]> {
  if (mediaIds.length === 0) return []
  const rows: JudgedMedia[] = tx
    ? await tx.$queryRaw<JudgedMedia[]>`
        SELECT id, filename, alt_text AS "altText", embargo_until AS "embargoUntil", expires_at AS "expiresAt"
        FROM media WHERE tenant_id = ${tenantId} AND id = ANY(${[...mediaIds]}::text[]) ORDER BY id FOR SHARE`
    : await tenantDb(tenantId).media.findMany({ where: { id: { in: [...mediaIds] } }, select: { id: true, filename: true, altText: true, embargoUntil: true, expiresAt: true } })
  const byId = new Map(rows.map((row) => [row.id, row]))
  return mediaIds.flatMap((id): UnpublishableMedia[] => {
    const media = byId.get(id)
    if (!media) return [notInLibrary(id)]
    const reasons = mediaPublishRefusal(media, now)
    return reasons.length === 0 ? [] : [{ media_id: id, filename: media.filename, missing: reasons, reason: describeRefusal(media, reasons) }]
  })
}

const notInLibrary = (id: string): UnpublishableMedia => ({ media_id: id, filename: null, missing: ['not_in_library'], reason: 'it is not in the media library (deleted?)' })

/**
 * The 422 a publication gets while any of its images may not be published, naming each and why.
 * Judged on rows locked by the write's transaction when given one (see unpublishableMedia).
 */
export async function assertMediaPublishable(tenantId: string, mediaIds: readonly string[], now: Date = new Date(), tx?: SqlTransaction): Promise<void> {
  const refused = await unpublishableMedia(tenantId, mediaIds, now, tx)
  if (refused.length > 0) throw mediaNotPublishable(refused)
}

function mediaNotPublishable(refused: UnpublishableMedia[]): DomainError {
  const list = refused.map((item) => `${item.filename ?? item.media_id} (${item.media_id}): ${item.reason}`).join('; ')
  return new DomainError('media_not_publishable', `This article's images may not be published yet: ${list}. Fix them in the media library, then publish again.`, { media: refused })
}

/**
 * The database's own refusal (the articles_guard_live_media trigger, SQLSTATE NRM01) of a write
 * that would have a published article show images deleted meanwhile, as the same 422 the
 * publish rule gives; undefined for any other error.
 */
export function liveMediaRefusal(error: unknown): DomainError | undefined {
  const found = postgresError(error, (code) => code === 'NRM01')
  if (!found) return undefined
  return mediaNotPublishable((found.detail ?? '').split(',').filter(Boolean).map(notInLibrary))
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
 * The images the publish rule must judge for a write to an article (PATCH, the portal's save, a
 * revision's restore): none unless the article is live; then those the write brings into view,
 * which must be publishable now, as publishing itself asks (assertMediaPublishable, judged in the
 * write's transaction).
 */
export function imagesToJudgeForWrite(current: ArticleImages & { status: string }, next: Partial<ArticleImages>): string[] {
  if (current.status !== 'published') return []
  if (next.body === undefined && next.featuredMediaId === undefined) return []
  return imagesAddedByWrite(current, next)
}
