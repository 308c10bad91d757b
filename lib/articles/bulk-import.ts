import type { z } from 'zod'
import { Prisma } from '../db/generated/client.ts'
import { DomainError, type FieldError } from '../errors.ts'
import { createId } from '../ids.ts'
import type { Actor } from '../tenancy/actor.ts'
import { tenantDb } from '../tenancy/tenant-db.ts'
import { can } from '../auth/permissions.ts'
import { hasScope, type Scope } from '../tokens/scopes.ts'
import { findForeignReferences, mediaReferences, referenceErrors, uniqueTags } from './article-references.ts'
import { toArticleRecord } from './article-record.ts'
import { articleColumns, toArticle, type StoredArticle } from './article-rows.ts'
import { bulkArticleSchema, maxBulkArticles, maxImageUrlsPerImport } from './article-schemas.ts'
import { zodFieldErrors } from '../validation.ts'
import { cleanBody } from './stored-body.ts'
import { commitArticleChange } from './commit-article-change.ts'
import type { SqlTransaction } from '../db/sql-transaction.ts'
import { importFeaturedImages, type WhileWaitingOnOthers } from '../media/import-featured-images.ts'
import { imagesAddedByWrite, unpublishableMedia } from '../media/publishable-media.ts'

export type BulkItemResult = {
  index: number
  status: 'created' | 'updated' | 'failed'
  article_id?: string
  external_id?: string
  body_removed?: string[]
  featured_media_id?: string
  errors?: FieldError[]
}

export type BulkImportResult = { created: number; updated: number; failed: number; results: BulkItemResult[] }

type ValidItem = { index: number; id: string; input: z.infer<typeof bulkArticleSchema>; bodyRemoved: string[] }

type UpsertedRow = StoredArticle & { inserted: boolean }

/**
 * The scopes the request's key carries: a featured_image_url adds a record to the media library,
 * which needs media:write (as POST /v1/media) from the key and its owner's role. Without it an
 * articles-only key could fill the library and make this instance fetch and decode images.
 */
export type BulkImportGrant = { tokenScopes: readonly Scope[] }

/** How the door runs the import's wire fetches (importFeaturedImages): by default, as any other work. */
export type BulkImportOptions = { whileWaitingOnOthers?: WhileWaitingOnOthers }

/** Code-unit order: the same in every process and every database, whatever its collation. */
const byExternalId = (a: ValidItem, b: ValidItem) => {
  const first = a.input.external_id
  const second = b.input.external_id
  if (first === second) return a.index - b.index
  if (first === undefined) return 1
  if (second === undefined) return -1
  return first < second ? -1 : 1
}

/**
 * Imports wire copy: every item is validated on its own, the valid ones are stored in one
 * statement (new ones created, known external_ids updated) with one event each, and the
 * invalid ones are reported. The number of queries does not grow with the number of items.
 *
 * Feeds send overlapping batches at once. The statement writes its rows in external_id order,
 * whatever the request's order, so two imports sharing articles lock them in the same order
 * and wait for each other instead of deadlocking; a conflict PostgreSQL still settles by
 * rolling one back (a rarer kind of deadlock, or a serialization failure) runs the whole
 * import again. Each attempt is one transaction and its results are taken only from the one
 * that committed, so the answer and the events are what a run after the others would give.
 */
export async function importArticles(actor: Actor, items: unknown[], grant: BulkImportGrant, options: BulkImportOptions = {}): Promise<BulkImportResult> {
  if (items.length > maxBulkArticles) {
    throw new DomainError('too_many_items', `A bulk import takes at most ${maxBulkArticles} articles; this one has ${items.length}. Split it; nothing was stored.`)
  }
  const tdb = tenantDb(actor.tenant.id)
  const results: BulkItemResult[] = items.map((_, index) => ({ index, status: 'failed' }))
  const valid: ValidItem[] = []
  const seenExternalIds = new Map<string, number>()

  items.forEach((item, index) => {
    const parsed = bulkArticleSchema.safeParse(item)
    if (!parsed.success) {
      results[index]!.errors = zodFieldErrors(parsed.error)
      return
    }
    const externalId = parsed.data.external_id
    if (externalId !== undefined) {
      results[index]!.external_id = externalId
      const first = seenExternalIds.get(externalId)
      if (first !== undefined) {
        results[index]!.errors = [{ field: 'external_id', message: `external_id '${externalId}' appears already at index ${first} of this request.` }]
        return
      }
      seenExternalIds.set(externalId, index)
    }
    const body = cleanBody(parsed.data.body)
    valid.push({ index, id: createId('art'), input: { ...parsed.data, body: body.body }, bodyRemoved: body.removed })
  })

  const unknown = await findForeignReferences(tdb, {
    departmentIds: valid.flatMap((item) => (item.input.department_id ? [item.input.department_id] : [])),
    authorIds: valid.flatMap((item) => (item.input.author_id ? [item.input.author_id] : [])),
    mediaIds: valid.flatMap((item) => mediaReferences(item.input)),
  })
  const mayAddMedia = hasScope(grant.tokenScopes, 'media:write') && can(actor, 'media:write')
  const namedUrls = new Set<string>()
  const referenced = valid.filter((item) => {
    const errors = [...referenceErrors(item.input, unknown), ...imageUrlErrors(item.input.featured_image_url, namedUrls, mayAddMedia)]
    if (errors.length > 0) results[item.index]!.errors = errors
    return errors.length === 0
  })
  // Wire photos are fetched only for items that are otherwise valid, each URL once; the media
  // they make is kept even if the articles' transaction is then retried (the same bytes are the
  // same record on the next attempt).
  const images = await importFeaturedImages(actor, referenced.flatMap((item) => (item.input.featured_image_url ? [item.input.featured_image_url] : [])), options.whileWaitingOnOthers)
  const storable = referenced.filter((item) => {
    const url = item.input.featured_image_url
    if (url === undefined) return true
    const image = images.get(url)!
    if ('error' in image) {
      results[item.index]!.errors = [{ field: 'featured_image_url', message: image.error }]
      return false
    }
    item.input = { ...item.input, featured_media_id: image.mediaId }
    return true
  })

  const defaultAuthor = actor.user?.id
  const toRow = (item: ValidItem, ord: number) => ({
    ord,
    id: item.id,
    external_id: item.input.external_id ?? null,
    headline: item.input.headline,
    lede: item.input.lede ?? null,
    body: item.input.body ?? null,
    department_id: item.input.department_id ?? null,
    tags: item.input.tags === undefined ? null : uniqueTags(item.input.tags),
    // The database labels states as the API spells them ('in-review').
    status: item.input.status ?? 'draft',
    author_id: item.input.author_id ?? defaultAuthor,
    slug: item.input.slug ?? null,
    featured_media_id: item.input.featured_media_id ?? null,
  })

  // A conflict PostgreSQL settles by rolling the import back runs it again (commitArticleChange).
  const storedResults = storable.length === 0 ? [] : await storeItems()
  for (const result of storedResults) results[result.index] = result

  const count = (status: BulkItemResult['status']) => results.filter((result) => result.status === status).length
  return { created: count('created'), updated: count('updated'), failed: count('failed'), results }

  /** One attempt: the stored items' results, or a throw that leaves nothing behind. */
  function storeItems(): Promise<BulkItemResult[]> {
    return commitArticleChange(actor.tenant.id, async (tx, emit) => {
      const publishable = await withoutUnpublishableImages(tx, actor.tenant.id, storable, results)
      if (publishable.length === 0) return []
      const rows = [...publishable].sort(byExternalId).map(toRow)
      // One statement for all items. Raw SQL bypasses the tenant scope, so tenant_id is bound
      // explicitly here and in the conflict target. On re-sent external_ids, fields left out
      // (or null) keep their values, status and author stay as the newsroom set them, and
      // archived articles are left alone (they are read-only).
      const upserted = await tx.$queryRaw<UpsertedRow[]>`
        INSERT INTO articles (id, tenant_id, external_id, headline, lede, body, department_id, tags, status, author_id, slug, version, created_at, updated_at, edited_by_id, featured_media_id)
        SELECT x.id, ${actor.tenant.id}, x.external_id, x.headline, x.lede, x.body, x.department_id,
               COALESCE(x.tags, '{}'), x.status::"ArticleStatus", x.author_id, x.slug, 1, now(), now(), ${actor.user?.id ?? null}::text, x.featured_media_id
        FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
          AS x(ord int, id text, external_id text, headline text, lede text, body text, department_id text, tags text[], status text, author_id text, slug text, featured_media_id text)
        ORDER BY x.ord
        ON CONFLICT (tenant_id, external_id) DO UPDATE SET
          headline = EXCLUDED.headline,
          lede = COALESCE(EXCLUDED.lede, articles.lede),
          body = COALESCE(EXCLUDED.body, articles.body),
          department_id = COALESCE(EXCLUDED.department_id, articles.department_id),
          tags = CASE WHEN EXCLUDED.tags = '{}' THEN articles.tags ELSE EXCLUDED.tags END,
          slug = COALESCE(EXCLUDED.slug, articles.slug),
          featured_media_id = COALESCE(EXCLUDED.featured_media_id, articles.featured_media_id),
          version = articles.version + 1,
          updated_at = now(),
          edited_by_id = EXCLUDED.edited_by_id,
          restoring_revision_id = NULL
        WHERE articles.status <> 'archived'
          -- A live article moves to a new address only through PATCH, which keeps the old one.
          AND (EXCLUDED.slug IS NULL OR articles.url IS NULL OR EXCLUDED.slug IS NOT DISTINCT FROM articles.slug)
        RETURNING ${Prisma.raw(articleColumns)}, (xmax = 0) AS inserted`

      const byId = new Map(publishable.map((item) => [item.id, item]))
      const itemsByExternalId = new Map(publishable.flatMap((item) => (item.input.external_id ? [[item.input.external_id, item] as const] : [])))
      const outcomes = new Map<number, BulkItemResult>()
      for (const row of upserted) {
        const item = row.inserted ? byId.get(row.id) : itemsByExternalId.get(row.externalId ?? '')
        if (!item) continue
        outcomes.set(item.index, {
          index: item.index,
          status: row.inserted ? 'created' : 'updated',
          article_id: row.id,
          ...(row.externalId !== null && { external_id: row.externalId }),
          ...(item.bodyRemoved.length > 0 && { body_removed: item.bodyRemoved }),
          ...(row.featuredMediaId !== null && { featured_media_id: row.featuredMediaId }),
        })
      }
      const refused = publishable.filter((item) => !outcomes.has(item.index))
      if (refused.length > 0) {
        const live = await tx.$queryRaw<{ external_id: string }[]>`
          SELECT external_id FROM articles
          WHERE tenant_id = ${actor.tenant.id} AND external_id = ANY(${refused.map((item) => item.input.external_id)}::text[]) AND status <> 'archived'`
        const liveIds = new Set(live.map((row) => row.external_id))
        for (const item of refused) {
          outcomes.set(item.index, {
            ...results[item.index]!,
            errors: liveIds.has(item.input.external_id!)
              ? [{ field: 'slug', message: `The article with external_id '${item.input.external_id}' is published; change its slug with PATCH /v1/articles/{article_id}, which keeps the old address as a redirect.` }]
              : [{ field: 'external_id', message: `The article with external_id '${item.input.external_id}' is archived and read-only; restore it first.` }],
          })
        }
      }
      await emit(
        upserted.map(({ inserted, ...stored }) => ({ kind: inserted ? 'article.created' : 'article.updated', data: toArticleRecord(toArticle(stored)) })),
      )
      return [...outcomes.values()]
    }, { what: 'bulk import' })
  }
}

/**
 * The items that may be stored: an update of a live article (a re-sent external_id) may not
 * bring into view an image publishing would refuse, as a PATCH may not (lib/media/publishable-media.ts);
 * such an item fails, naming each image and what is missing. (Imports create only drafts and
 * articles in review, which are judged when they are published.)
 *
 * Judged in the import's transaction: the articles it updates are locked first (in the order
 * the upsert writes them, so overlapping imports still wait rather than deadlock), so none is
 * published meanwhile without being judged here, and the images are judged on rows locked
 * until the import commits, so none is deleted or stripped of its alt text in between.
 */
async function withoutUnpublishableImages(tx: SqlTransaction, tenantId: string, items: ValidItem[], results: BulkItemResult[]): Promise<ValidItem[]> {
  const externalIds = items.flatMap((item) => (item.input.external_id !== undefined ? [item.input.external_id] : []))
  if (externalIds.length === 0) return items
  const known = await tx.$queryRaw<{ externalId: string; featuredMediaId: string | null; body: string | null; status: string }[]>`
    SELECT external_id AS "externalId", featured_media_id AS "featuredMediaId", body, status::text AS status FROM articles
    WHERE tenant_id = ${tenantId} AND external_id = ANY(${externalIds}::text[])
    ORDER BY external_id COLLATE "C" FOR NO KEY UPDATE`
  const live = known.filter((article) => article.status === 'published')
  if (live.length === 0) return items
  const liveByExternalId = new Map(live.map((article) => [article.externalId, article]))
  const added = new Map<ValidItem, string[]>()
  for (const item of items) {
    const current = item.input.external_id !== undefined ? liveByExternalId.get(item.input.external_id) : undefined
    // Fields left out (or null) keep their values on update, as the upsert does.
    if (current) added.set(item, imagesAddedByWrite(current, { featuredMediaId: item.input.featured_media_id ?? undefined, body: item.input.body ?? undefined }))
  }
  const refused = new Map((await unpublishableMedia(tenantId, [...new Set([...added.values()].flat())], new Date(), tx)).map((media) => [media.media_id, media]))
  return items.filter((item) => {
    const problems = (added.get(item) ?? []).flatMap((id) => refused.get(id) ?? [])
    if (problems.length === 0) return true
    results[item.index]!.errors = problems.map((media) => ({
      field: item.input.featured_media_id === media.media_id ? 'featured_media_id' : 'body',
      message: `The article is published, and ${media.filename ?? media.media_id} (${media.media_id}) may not be published yet: ${media.reason}.`,
    }))
    return false
  })
}

/** Why an item's featured_image_url may not be fetched: no media:write, or past the request's cap of distinct URLs (counted in request order in `named`). */
function imageUrlErrors(url: string | undefined, named: Set<string>, mayAddMedia: boolean): FieldError[] {
  if (url === undefined) return []
  if (!mayAddMedia) {
    return [{ field: 'featured_image_url', message: 'featured_image_url adds the photo to the media library, which needs the media:write scope; use a key with it, or send the featured_media_id of an image the library has.' }]
  }
  if (!named.has(url) && named.size >= maxImageUrlsPerImport) {
    return [{ field: 'featured_image_url', message: `One request may name at most ${maxImageUrlsPerImport} different featured_image_urls; this item names one more. Send it in another request.` }]
  }
  named.add(url)
  return []
}
