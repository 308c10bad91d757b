import type { Prisma } from '../db/generated/client.ts'
import { db } from '../db/client.ts'
import { articlesChanged } from '../articles/article-totals.ts'
import { commitChange } from '../events/commit-change.ts'
import { createId } from '../ids.ts'
import { tenantDb } from '../tenancy/tenant-db.ts'
import { mediaChangeEvents } from './media-library.ts'

/** The kind of the article note that tells an article's editors one of its images was withheld. */
export const mediaWithheldNoteKind = 'media_withheld'

// A sweep takes this many images at a time: a newsroom whose agency contract ended may have
// thousands expire at one instant, and each is a transaction of its own.
const batch = 100

export type ExpirySweep = { withheld: { mediaId: string; tenantId: string; articleIds: string[] }[] }

/**
 * Withholds the images whose licence has ended (rights.expires_at passed): once per image
 * (withheld_at, which a new expires_at clears), in one transaction each, it marks the image,
 * emits media.updated with the purge of its renditions and of the pages showing it (mediaChangeEvents, the path a PATCH takes), and writes a note on each of
 * those articles, which their editors see in its thread and on the desk. The content API and the
 * rendition route stop showing it the instant the licence ends (mediaWithheld); this is what
 * makes the caches and the people follow.
 *
 * An expired image no live article shows is withheld too (media.updated and the purge of its
 * renditions, no note): its rendition URLs were public (a story it was taken out of, an old copy
 * of a page, a feed) and shared caches keep them for a year as immutable, so only a purge stops
 * them being served past the licence.
 */
export async function withholdExpiredMedia(now: Date = new Date()): Promise<ExpirySweep> {
  const withheld: ExpirySweep['withheld'] = []
  for (;;) {
    // Across newsrooms on purpose (the sweep is the system's); each change below is tenant-scoped.
    const due = await db.$queryRaw<{ id: string; tenant_id: string }[]>`
      SELECT m.id, m.tenant_id FROM media m
      WHERE m.expires_at <= ${now} AND m.withheld_at IS NULL
      ORDER BY m.expires_at, m.id
      LIMIT ${batch}`
    for (const row of due) {
      const done = await withholdOne(row.tenant_id, row.id, now)
      if (done) withheld.push(done)
    }
    if (due.length < batch) return { withheld }
  }
}

async function withholdOne(tenantId: string, mediaId: string, now: Date): Promise<ExpirySweep['withheld'][number] | null> {
  const tdb = tenantDb(tenantId)
  const outcome = await commitChange(
    tdb,
    tenantId,
    async (tx, emit) => {
      // Marked once: two sweeps at once (or a PATCH of expires_at meanwhile) leave one winner.
      const claimed = await tx.media.updateMany({ where: { id: mediaId, withheldAt: null, expiresAt: { lte: now } }, data: { withheldAt: now } })
      if (claimed.count === 0) return null
      const media = await tx.media.findUniqueOrThrow({ where: { id: mediaId } })
      const articles = await tx.article.findMany({ where: { mediaIds: { has: mediaId } }, select: { id: true, status: true }, orderBy: { id: 'asc' } })
      const live = articles.filter((article) => article.status === 'published').map((article) => article.id)
      await emit(mediaChangeEvents(tenantId, { ...media, usedBy: articles.map((article) => article.id) }, live))
      const what = [media.filename, media.credit && `credit ${media.credit}`].filter(Boolean).join(', ')
      await tx.articleNote.createMany({
        data: live.map((articleId) => ({
          id: createId('not'),
          tenantId,
          articleId,
          authorId: null,
          kind: mediaWithheldNoteKind,
          body:
            `The licence of an image in this article (${what}; ${media.id}) expired at ${media.expiresAt!.toISOString()}. ` +
            'The site no longer shows it (the article stays live without it) and the caches were purged. Replace the image, or renew the licence and set its new end date in the media library.',
        })) satisfies Prisma.ArticleNoteCreateManyInput[],
      })
      return { mediaId, tenantId, articleIds: live }
    },
    // The content API's cached answers listed the image: they live under the article generation.
    { afterCommit: () => articlesChanged([tenantId]) },
  )
  return outcome
}
