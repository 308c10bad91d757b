import path from 'node:path'
import { Prisma, type Media } from '../db/generated/client.ts'
import { commitChange } from '../events/commit-change.ts'
import { ConflictError, DomainError, ForbiddenError, NotFoundError, PreconditionFailedError } from '../errors.ts'
import { createId } from '../ids.ts'
import { newestFirstPage } from '../newest-first-cursor.ts'
import type { Page } from '../pagination.ts'
import type { Actor } from '../tenancy/actor.ts'
import { tenantDb } from '../tenancy/tenant-db.ts'
import { withImageSlot } from './image-gate.ts'
import { checkImage, readEmbeddedMetadata, sniffImageType, UnsupportedImageTypeError } from './inspect-image.ts'
import { mediaMaxBytes, mediaMaxPixels } from './media-limits.ts'
import { mediaActionRefusal } from './media-permissions.ts'
import { mediaPublishRefusal, type RightsFields } from './media-rights.ts'
import { toMediaRecord, type MediaWithUse } from './media-record.ts'
import type { ListMediaQuery, UpdateMediaInput } from './media-schemas.ts'
import type { ReceivedFile } from './receive-upload.ts'
import { mediaStore } from './storage/media-storage.ts'
import { withMediaPurges } from './media-purges.ts'
import { articlesChanged } from '../articles/article-totals.ts'
import { logger } from '../ops/logger.ts'
import { instantAtOrAfter } from '../instant-bound.ts'

/**
 * Where a record's original lives in the media store: a key of its own, its content hash and its
 * id. A deletion removes its blobs after its record's removal has committed, and the same bytes
 * may be uploaded again in between (a new record): under a key shared by the hash, the late
 * removal took the new record's original with it. Sibling to the legacy key (not under it), so
 * neither a directory on disk nor a key prefix ties the two together.
 */
export const originalKey = (tenantId: string, sha256: string, mediaId: string) => `originals/${tenantId.toLowerCase()}/${sha256}-${mediaId.toLowerCase()}`
/** The key records stored before originalKey had one per record keep in their storage_key: one per (newsroom, hash). */
export const legacyOriginalKey = (tenantId: string, sha256: string) => `originals/${tenantId.toLowerCase()}/${sha256}`
/** Whether `key` is the record's own original's (either form), never another record's or another newsroom's. */
export const isOwnOriginalKey = (key: string, media: { tenantId: string; sha256: string; id: string }) =>
  key === originalKey(media.tenantId, media.sha256, media.id) || key === legacyOriginalKey(media.tenantId, media.sha256)
/**
 * Renditions stay shared by (newsroom, hash): a late deletion may remove those of the same bytes
 * uploaded again, which costs one render each, as storedOrRendered renders a missing rendition
 * again from the record's own original (lib/media/render-rendition.ts).
 */
export const renditionPrefix = (tenantId: string, sha256: string) => `renditions/${tenantId.toLowerCase()}/${sha256}/`

/** The record's fields an upload may carry (multipart parts or the JSON body of a source_url upload). */
export type UploadFields = Pick<UpdateMediaInput, 'alt_text' | 'caption' | 'credit' | 'copyright' | 'source' | 'rights' | 'focal_point' | 'taken_at'> & { filename?: string | null }

export type CreatedMedia = { media: MediaWithUse; created: boolean }

async function usedBy(tenantId: string, ids: string[]): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>(ids.map((id) => [id, []]))
  if (ids.length === 0) return found
  const articles = await tenantDb(tenantId).article.findMany({ where: { mediaIds: { hasSome: ids } }, select: { id: true, mediaIds: true }, orderBy: { id: 'asc' } })
  for (const article of articles) for (const id of article.mediaIds) found.get(id)?.push(article.id)
  return found
}

async function withUse(tenantId: string, media: Media): Promise<MediaWithUse> {
  return { ...media, usedBy: (await usedBy(tenantId, [media.id])).get(media.id) ?? [] }
}

function fieldData(fields: Partial<UploadFields>): Prisma.MediaUncheckedUpdateInput {
  const data: Prisma.MediaUncheckedUpdateInput = {}
  if (fields.alt_text !== undefined) data.altText = fields.alt_text || null
  if (fields.caption !== undefined) data.caption = fields.caption || null
  if (fields.credit !== undefined) data.credit = fields.credit || null
  if (fields.copyright !== undefined) data.copyright = fields.copyright || null
  if (fields.source !== undefined) data.source = fields.source || null
  if (fields.taken_at !== undefined) data.takenAt = fields.taken_at ? new Date(fields.taken_at) : null
  if (fields.focal_point !== undefined) {
    data.focalX = fields.focal_point.x
    data.focalY = fields.focal_point.y
  }
  const rights = fields.rights
  if (rights?.usage_terms !== undefined) data.usageTerms = rights.usage_terms || null
  if (rights?.embargo_until !== undefined) data.embargoUntil = rights.embargo_until ? new Date(rights.embargo_until) : null
  if (rights?.expires_at !== undefined) {
    data.expiresAt = rights.expires_at ? new Date(rights.expires_at) : null
    // A renewed licence (no end, or one still ahead) serves the image again; an end still past
    // (a client re-sending the record it read) leaves it withheld, so the sweep does not withhold
    // it a second time with another media.updated and another note on each article.
    if (data.expiresAt === null || data.expiresAt.getTime() > Date.now()) data.withheldAt = null
  }
  return data
}

/**
 * Keeps an upload (already streamed to a temp file): its type from its bytes (415 otherwise),
 * the whole image decoded once under the image gate (422 for corrupt files and pixel bombs),
 * embedded IPTC/XMP/EXIF filling the fields the uploader left empty, the bytes stored under
 * the record's own key (originalKey), and the record with its media.uploaded event committed
 * together. The same bytes again answer the existing record (created: false) and keep nothing.
 *
 * `requester`, where given, aborts when whoever asked leaves before the answer reached them (the
 * portal's upload: its page says "Nothing was stored" on a cancel, and the browser cancels by
 * closing the connection, which may be seen only once the whole file has arrived, while the image
 * is being checked). Then the upload is refused at its commit. Once committed it is kept: the
 * image is the library's from then on (another tab uploading the same bytes is answered with it,
 * a colleague can put it in a draft), and removing it again took it from them (break62).
 */
export async function createMedia(actor: Actor, file: ReceivedFile, fields: UploadFields, options: { requester?: AbortSignal } = {}): Promise<CreatedMedia> {
  const { requester } = options
  try {
    const tenantId = actor.tenant.id
    const tdb = tenantDb(tenantId)
    const existing = await tdb.media.findUnique({ where: { tenantId_sha256: { tenantId, sha256: file.sha256 } } })
    if (existing) return { media: await withUse(tenantId, existing), created: false }
    const contentType = sniffImageType(file.head)
    if (!contentType) throw new UnsupportedImageTypeError()
    const size = await withImageSlot(() => checkImage(file.path, mediaMaxPixels()))
    const embedded = await readEmbeddedMetadata(file.path)
    const id = createId('med')
    const key = originalKey(tenantId, file.sha256, id)
    await mediaStore().putFile(key, file.path, contentType)
    const now = new Date()
    const data = fieldData(fields) as Prisma.MediaUncheckedCreateInput
    const row = {
      ...data,
      id,
      tenantId,
      contentType,
      filename: safeFilename(fields.filename) ?? `image.${contentType.split('/')[1]}`,
      bytes: file.bytes,
      width: size.width,
      height: size.height,
      sha256: file.sha256,
      storageKey: key,
      caption: data.caption ?? embedded.caption ?? null,
      credit: data.credit ?? embedded.credit ?? null,
      copyright: data.copyright ?? embedded.copyright ?? null,
      takenAt: data.takenAt ?? embedded.takenAt ?? null,
      createdById: actor.user?.id ?? null,
      createdAt: now,
      updatedAt: now,
    } satisfies Prisma.MediaUncheckedCreateInput
    try {
      const media = await commitChange(tdb, tenantId, async (tx, emit) => {
        if (requester?.aborted) throw new DomainError('request_aborted', 'The upload was cancelled before it was kept.')
        const created = await tx.media.create({ data: row })
        await emit([{ kind: 'media.uploaded', data: toMediaRecord({ ...created, usedBy: [] }) as unknown as Prisma.InputJsonObject }])
        return created
      })
      return { media: { ...media, usedBy: [] }, created: true }
    } catch (error) {
      // Two uploads of the same bytes at once: the second finds the first's record. The copy it
      // stored under its own key is nobody's, and goes; so does it when no record was made at
      // all. Only a record of its own (the commit went through after all) keeps it.
      const raced = await tdb.media.findUnique({ where: { tenantId_sha256: { tenantId, sha256: file.sha256 } } })
      if (raced?.id === id) return { media: { ...raced, usedBy: [] }, created: true }
      await removeBlobs(tenantId, id, [key], (store) => [store.delete(key)])
      if (raced) return { media: await withUse(tenantId, raced), created: false }
      throw error
    }
  } finally {
    await file.discard()
  }
}

function safeFilename(name: string | null | undefined): string | null {
  if (!name) return null
  const base = path.basename(name.replaceAll('\\', '/')).replace(/[\u0000-\u001f\u007f]/g, '').trim().slice(0, 255)
  return base || null
}

/** The newsroom's image, or a 404: another newsroom's id looks exactly like a missing one. */
export async function getMedia(actor: Actor, mediaId: string): Promise<MediaWithUse> {
  const media = await tenantDb(actor.tenant.id).media.findUnique({ where: { id: mediaId } })
  if (!media) throw new NotFoundError('media', mediaId)
  return withUse(actor.tenant.id, media)
}

/**
 * Text searched for as written: Prisma's `contains` is an (I)LIKE whose pattern it does not
 * escape, so `%` and `_` would match anything. PostgreSQL's default LIKE escape is the backslash.
 */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`)
}

/** Newest first, cursor-paged, with the library's filters. */
export async function listMedia(actor: Actor, query: ListMediaQuery): Promise<Page<MediaWithUse>> {
  const tenantId = actor.tenant.id
  const tdb = tenantDb(tenantId)
  // In SQL, not as a Prisma filter: "used" is whether an article's media_ids holds the image, an
  // EXISTS over articles_media_ids_idx; as a Prisma filter it was every id in use sent back as one
  // bind parameter each, which PostgreSQL refuses past 32,767 (a newsroom with years of stories).
  const conditions: Prisma.Sql[] = [Prisma.sql`m.tenant_id = ${tenantId}`]
  const containing = (column: string, text: string) => Prisma.sql`${Prisma.raw(column)} ILIKE ${`%${likeLiteral(text)}%`}`
  if (query.q) {
    for (const word of query.q.split(/\s+/).filter(Boolean).slice(0, 8)) {
      conditions.push(Prisma.sql`(${Prisma.join(['m.caption', 'm.credit', 'm.alt_text', 'm.filename'].map((column) => containing(column, word)), ' OR ')})`)
    }
  }
  if (query.credit) conditions.push(containing('m.credit', query.credit))
  if (query.created_after) conditions.push(Prisma.sql`m.created_at > ${new Date(query.created_after)}`)
  if (query.created_before) conditions.push(Prisma.sql`m.created_at < ${instantAtOrAfter(query.created_before)}`)
  if (query.rights_expire_before) conditions.push(Prisma.sql`m.expires_at < ${instantAtOrAfter(query.rights_expire_before)}`)
  if (query.unused !== undefined) {
    conditions.push(Prisma.sql`${query.unused ? Prisma.sql`NOT ` : Prisma.empty}EXISTS (SELECT 1 FROM articles a WHERE a.tenant_id = m.tenant_id AND a.media_ids @> ARRAY[m.id])`)
  }
  const where = Prisma.join(conditions, ' AND ')
  const { cursor: _cursor, limit: _limit, offset: _offset, ...filter } = query
  const page = await newestFirstPage({ tenantId, list: 'media', filter }, query, (row: Media) => row.createdAt.getTime(), async (after) => {
    const position = after ? Prisma.sql` AND (m.created_at < ${new Date(after.key)} OR (m.created_at = ${new Date(after.key)} AND m.id < ${after.id}))` : Prisma.empty
    const [ids, [counted]] = await Promise.all([
      tdb.$queryRaw<{ id: string }[]>`SELECT m.id FROM media m WHERE ${where}${position} ORDER BY m.created_at DESC, m.id DESC OFFSET ${after ? 0 : query.offset} LIMIT ${query.limit}`,
      tdb.$queryRaw<{ total: number }[]>`SELECT count(*)::int AS total FROM media m WHERE ${where}`,
    ])
    const rows = new Map((await tdb.media.findMany({ where: { id: { in: ids.map((row) => row.id) } } })).map((row) => [row.id, row]))
    return [ids.flatMap((row) => rows.get(row.id) ?? []), counted!.total]
  })
  const uses = await usedBy(tenantId, page.items.map((item) => item.id))
  return { ...page, items: page.items.map((item) => ({ ...item, usedBy: uses.get(item.id) ?? [] })) }
}

/**
 * Changes an image's fields, as the user may (mediaActionRefusal), pinned to `expectedVersion`
 * when given (If-Match: 412 when the image changed since). The change and media.updated commit
 * together; a live article showing it has its public pages purged.
 */
export async function updateMedia(actor: Actor, mediaId: string, input: UpdateMediaInput, options: { expectedVersion?: number | readonly number[] } = {}): Promise<MediaWithUse> {
  const tenantId = actor.tenant.id
  const tdb = tenantDb(tenantId)
  const current = await getMedia(actor, mediaId)
  const refusal = mediaActionRefusal(actor.user, current, 'edit')
  if (refusal) throw new ForbiddenError(refusal)
  if (options.expectedVersion !== undefined && ![options.expectedVersion].flat().includes(current.version)) {
    throw new PreconditionFailedError(`The image changed since you read it (it is at version ${current.version}); read it again and re-apply your change.`)
  }
  const data = fieldData(input)
  if (Object.keys(data).length === 0) return current
  const updated = await commitChange(tdb, tenantId, async (tx, emit) => {
    const count = await tx.media.updateMany({ where: { id: mediaId, version: current.version }, data: { ...data, version: { increment: 1 } } })
    if (count.count === 0) throw new PreconditionFailedError('The image changed while your change was being made; read it again and re-apply your change.')
    const row = await tx.media.findUniqueOrThrow({ where: { id: mediaId } })
    const record = { ...row, usedBy: current.usedBy }
    const live = await liveArticlesShowing(tx, tenantId, mediaId)
    // Alt text is a publishing duty that lasts while the image is live: clearing it under a
    // published story is refused, as deleting the image is. Judged after the UPDATE has locked
    // the row, so a publication judging the image (which locks it FOR SHARE) either committed
    // first and is seen here, or waits for this edit and then judges the new text.
    if (live.length > 0 && lacksAltText(row) && !lacksAltText(current)) {
      throw new ConflictError('media_in_use', `Published articles show this image: ${live.join(', ')}. It needs alt text while they do: write a new alt text instead of clearing it, or take the image out of them (or unpublish them) first.`, { article_ids: live })
    }
    await emit(mediaChangeEvents(tenantId, record, live))
    return record
  }, {
    // The content API's cached answers show the image's caption, credit and rights (its
    // `images`): they live under the article generation, which must move for them too.
    afterCommit: () => (current.usedBy.length > 0 ? articlesChanged([tenantId]) : undefined),
  })
  return updated
}

const lacksAltText = (media: RightsFields) => mediaPublishRefusal(media).includes('alt_text_missing')

type ArticleReader = { article: { findMany: (args: { where: Prisma.ArticleWhereInput; select: { id: true }; orderBy: { id: 'asc' } }) => Promise<{ id: string }[]> } }

/** The published articles showing an image, in id order (read in the caller's transaction). */
export async function liveArticlesShowing(tx: ArticleReader, tenantId: string, mediaId: string): Promise<string[]> {
  const live = await tx.article.findMany({ where: { tenantId, mediaIds: { has: mediaId }, status: 'published' }, select: { id: true }, orderBy: { id: 'asc' } })
  return live.map((article) => article.id)
}

/**
 * media.updated, and when live articles (`liveArticleIds`) show the image, the purge of their
 * public pages (so a new caption, credit or focal point, or a withheld image, reaches readers).
 */
export function mediaChangeEvents(tenantId: string, media: MediaWithUse, liveArticleIds: string[]) {
  return withMediaPurges(tenantId, media.id, liveArticleIds, [{ kind: 'media.updated' as const, data: toMediaRecord(media) as unknown as Prisma.InputJsonObject }])
}

/**
 * Deletes an image: refused (409 media_in_use, naming them) while a published article shows it;
 * otherwise the record, media.deleted and the purge of its renditions commit together, then its
 * blobs are removed: its original (its own key, so never a later upload's of the same bytes) and
 * the renditions of its bytes (shared by hash: a record of the same bytes uploaded since renders
 * its own again on demand, see renditionPrefix).
 */
export async function deleteMedia(actor: Actor, mediaId: string, options: { expectedVersion?: number | readonly number[] } = {}): Promise<void> {
  const tenantId = actor.tenant.id
  const tdb = tenantDb(tenantId)
  const current = await getMedia(actor, mediaId)
  const refusal = mediaActionRefusal(actor.user, current, 'delete')
  if (refusal) throw new ForbiddenError(refusal)
  if (options.expectedVersion !== undefined && ![options.expectedVersion].flat().includes(current.version)) {
    throw new PreconditionFailedError(`The image changed since you read it (it is at version ${current.version}); read it again before deleting it.`)
  }
  await commitChange(tdb, tenantId, async (tx, emit) => {
    // The row first, FOR UPDATE: a publication that locked it (FOR SHARE, for its judgement and
    // in the articles_guard_live_media trigger) commits before this goes on, and is then seen
    // below; one that comes after waits for this deletion and finds the image gone (422).
    const [locked] = await tx.$queryRaw<{ version: number }[]>`SELECT version FROM media WHERE tenant_id = ${tenantId} AND id = ${mediaId} FOR UPDATE`
    if (!locked) throw new NotFoundError('media', mediaId)
    // If-Match is judged on the locked row too: a colleague's edit that committed while this
    // waited is a newer version than the one the person chose to delete.
    if (options.expectedVersion !== undefined && ![options.expectedVersion].flat().includes(locked.version)) {
      throw new PreconditionFailedError(`The image changed since you read it (it is at version ${locked.version}); read it again before deleting it.`)
    }
    const ids = await liveArticlesShowing(tx, tenantId, mediaId)
    if (ids.length > 0) {
      throw new ConflictError('media_in_use', `Published articles show this image: ${ids.join(', ')}. Remove it from them (or unpublish them) first.`, { article_ids: ids })
    }
    // media.deleted carries the record as it was when deleted (the locked row), not as first read.
    const deleted = await tx.media.delete({ where: { id: mediaId } })
    // Its renditions leave the shared cache too: they are cached for a year under an immutable
    // URL, and a deleted image (perhaps deleted for legal reasons) must stop being served.
    await emit(withMediaPurges(tenantId, mediaId, [], [{ kind: 'media.deleted', data: toMediaRecord({ ...deleted, usedBy: current.usedBy }) as unknown as Prisma.InputJsonObject }]))
  })
  const renditions = renditionPrefix(tenantId, current.sha256)
  await removeBlobs(tenantId, mediaId, [current.storageKey, renditions], (store) => [store.delete(current.storageKey), store.deletePrefix(renditions)])
}

/**
 * Blobs no record refers to, removed. Their record is gone (or never was): a store that does not
 * answer now must not turn what the person asked for into a failure they would retry. The blobs
 * left behind are logged with their keys, and the daily sweep removes them (orphan-blobs.ts).
 */
async function removeBlobs(tenantId: string, mediaId: string, keys: string[], remove: (store: ReturnType<typeof mediaStore>) => Promise<void>[]): Promise<void> {
  await Promise.all(remove(mediaStore())).catch((error: unknown) => {
    logger.error({ tenant_id: tenantId, media_id: mediaId, keys, err: error }, 'media blobs no record refers to were not removed from the store')
  })
}

/** The uploaded bytes as they came (metadata included): only for `media:read`, never public. */
export async function openOriginal(actor: Actor, mediaId: string) {
  const media = await getMedia(actor, mediaId)
  const stored = await mediaStore().get(media.storageKey)
  if (!stored) throw new NotFoundError('media', mediaId)
  return { media, ...stored }
}

/** For doors that must check before streaming a body (the multipart parser), the limit in force. */
export { mediaMaxBytes }
