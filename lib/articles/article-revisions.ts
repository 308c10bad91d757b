import { NotFoundError } from '../errors.ts'
import { newestFirstPage } from '../newest-first-cursor.ts'
import type { Page } from '../pagination.ts'
import type { Actor } from '../tenancy/actor.ts'
import { tenantDb } from '../tenancy/tenant-db.ts'
import type { RevisionRecord } from './revision-schemas.ts'
import type { WrittenArticle } from './stored-body.ts'
import { sanitizeBody } from './sanitize-body.ts'
import { updateArticle } from './update-article.ts'
import { mediaReferences } from './article-references.ts'
import type { ExpectedVersion } from './change-current-version.ts'
import { assertCan } from '../auth/permissions.ts'
import { leftOutFigure } from './revision-wording.ts'

// Revisions are written by the articles_record_revision trigger, in the transaction of the
// change itself (see its migration); this module only reads them, and restores one.

const include = { actor: { select: { id: true, name: true } }, restoredFrom: { select: { id: true, number: true } } } as const

type RevisionRow = {
  id: string
  articleId: string
  version: number
  number: number
  actor: { id: string; name: string } | null
  restoredFrom: { id: string; number: number } | null
  createdAt: Date
  fields: string[]
  headline: string
  lede: string | null
  body: string | null
  departmentId: string | null
  tags: string[]
  authorId: string
}

/** The API's record of a revision: its own number, and separately the article version it produced. */
export function toRevisionRecord(row: RevisionRow): RevisionRecord {
  return {
    revision_id: row.id,
    article_id: row.articleId,
    number: row.number,
    version: row.version,
    actor: row.actor,
    created_at: row.createdAt.toISOString(),
    fields: row.fields as RevisionRecord['fields'],
    headline: row.headline,
    lede: row.lede,
    // Sanitised on read: revisions are history the trigger wrote and nothing rewrites, and
    // those stored before bodies were sanitised on write still hold whatever was sent then.
    body: row.body === null ? null : sanitizeBody(row.body),
    department_id: row.departmentId,
    tags: row.tags,
    author_id: row.authorId,
    restored_from_revision_id: row.restoredFrom?.id ?? null,
    restored_from_revision_number: row.restoredFrom?.number ?? null,
  }
}

/** The article's revisions, newest first. */
export async function listRevisions(actor: Actor, articleId: string, query: { limit: number; offset: number; cursor?: string }): Promise<Page<RevisionRecord>> {
  assertCan(actor, 'articles:read')
  const tenantId = actor.tenant.id
  const tdb = tenantDb(tenantId)
  const article = await tdb.article.findUnique({ where: { id: articleId }, select: { id: true } })
  if (!article) throw new NotFoundError('article', articleId)
  const page = await newestFirstPage<RevisionRow>({ tenantId, list: `revisions:${articleId}`, filter: {} }, query, (row) => row.version, (after) =>
    Promise.all([
      tdb.articleRevision.findMany({
        where: { articleId, ...(after ? { OR: [{ version: { lt: after.key } }, { version: after.key, id: { lt: after.id } }] } : {}) },
        include,
        orderBy: [{ version: 'desc' }, { id: 'desc' }],
        take: query.limit,
        skip: after ? 0 : query.offset,
      }),
      tdb.articleRevision.count({ where: { articleId } }),
    ]),
  )
  return { ...page, items: page.items.map(toRevisionRecord) }
}

export async function getRevision(actor: Actor, articleId: string, revisionId: string): Promise<RevisionRecord> {
  assertCan(actor, 'articles:read')
  const row = await tenantDb(actor.tenant.id).articleRevision.findFirst({ where: { id: revisionId, articleId }, include })
  if (!row) throw new NotFoundError('revision', revisionId)
  return toRevisionRecord(row)
}

/**
 * Puts a revision's text back: headline, lede, body, tags and department, through the ordinary
 * update, so the workflow's rules, the expected version and the article.updated event apply as to any edit,
 * and the restore is itself a new revision, which names the one it put back. The author stays
 * who it is now.
 */
export async function restoreRevision(actor: Actor, articleId: string, revisionId: string, options: { expectedVersion?: ExpectedVersion; overrideLock?: boolean } = {}): Promise<WrittenArticle> {
  const revision = await getRevision(actor, articleId, revisionId)
  // An image the revision showed may have been deleted from the library since: its figure is
  // left out (and named in body_removed), so the earlier text can still be had; refusing the
  // whole restore for it would put that text out of reach for good.
  const { body, gone } = await withoutDeletedFigures(actor.tenant.id, revision.body)
  const written = await updateArticle(
    actor,
    articleId,
    { headline: revision.headline, lede: revision.lede, body, tags: revision.tags, department_id: revision.department_id },
    { ...options, restoringRevisionId: revision.revision_id },
  )
  return { ...written, bodyRemoved: [...written.bodyRemoved, ...gone.map(leftOutFigure)] }
}

/** The body without the figures of images the library no longer has, and their ids. */
async function withoutDeletedFigures(tenantId: string, body: string | null): Promise<{ body: string | null; gone: string[] }> {
  const named = body ? mediaReferences({ body }) : []
  if (named.length === 0) return { body, gone: [] }
  const present = new Set((await tenantDb(tenantId).media.findMany({ where: { id: { in: named } }, select: { id: true } })).map((media) => media.id))
  const gone = named.filter((id) => !present.has(id))
  if (gone.length === 0) return { body, gone }
  // The body is the sanitiser's output, so a figure is `<figure data-media-id="…">…</figure>`, never nested.
  const without = gone.reduce((html, id) => html.replace(new RegExp(`<figure[^>]*\\sdata-media-id="${id}"[^>]*>[\\s\\S]*?</figure>`, 'g'), ''), body!)
  return { body: without, gone }
}
