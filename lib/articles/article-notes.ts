import { assertCan, assertMemberCan } from '../auth/permissions.ts'
import { NotFoundError } from '../errors.ts'
import { createId } from '../ids.ts'
import { newestFirstPage } from '../newest-first-cursor.ts'
import type { Page } from '../pagination.ts'
import type { Actor } from '../tenancy/actor.ts'
import { tenantDb } from '../tenancy/tenant-db.ts'
import { toApiStatus } from './article-status.ts'
import type { NoteRecord } from './note-schemas.ts'
import { noteKinds } from './note-schemas.ts'

// The article's thread: review notes that came with a move (written with the move itself, see
// transition-article.ts), free comments, and take-overs of its edit lease (edit-lease.ts).

const include = {
  author: { select: { id: true, name: true } },
} as const

type NoteRow = { id: string; articleId: string; kind: string; body: string; transitionId: string | null; createdAt: Date; author: { id: string; name: string } | null }

async function toRecords(tenantId: string, rows: NoteRow[]): Promise<NoteRecord[]> {
  const transitionIds = rows.flatMap((row) => (row.transitionId ? [row.transitionId] : []))
  const moves = transitionIds.length > 0 ? await tenantDb(tenantId).articleTransition.findMany({ where: { id: { in: transitionIds } }, select: { id: true, fromState: true, toState: true } }) : []
  const byId = new Map(moves.map((move) => [move.id, { from_state: toApiStatus(move.fromState), to_state: toApiStatus(move.toState) }]))
  return rows.map((row) => ({
    note_id: row.id,
    article_id: row.articleId,
    kind: (noteKinds as readonly string[]).includes(row.kind) ? (row.kind as NoteRecord['kind']) : 'comment',
    body: row.body,
    author: row.author,
    move: row.transitionId ? (byId.get(row.transitionId) ?? null) : null,
    created_at: row.createdAt.toISOString(),
  }))
}

async function assertArticle(tenantId: string, articleId: string): Promise<void> {
  const article = await tenantDb(tenantId).article.findUnique({ where: { id: articleId }, select: { id: true } })
  if (!article) throw new NotFoundError('article', articleId)
}

/** The article's notes, newest first, by offset or cursor. */
export async function listArticleNotes(actor: Actor, articleId: string, query: { limit: number; offset: number; cursor?: string }): Promise<Page<NoteRecord>> {
  assertCan(actor, 'articles:read')
  const tenantId = actor.tenant.id
  await assertArticle(tenantId, articleId)
  const tdb = tenantDb(tenantId)
  const page = await newestFirstPage<NoteRow>({ tenantId, list: `notes:${articleId}`, filter: {} }, query, (row) => row.createdAt.getTime(), (after) =>
    Promise.all([
      tdb.articleNote.findMany({
        where: { articleId, ...(after ? { OR: [{ createdAt: { lt: new Date(after.key) } }, { createdAt: new Date(after.key), id: { lt: after.id } }] } : {}) },
        include,
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        take: query.limit,
        skip: after ? 0 : query.offset,
      }),
      tdb.articleNote.count({ where: { articleId } }),
    ]),
  )
  return { ...page, items: await toRecords(tenantId, page.items) }
}

/**
 * A free comment on the article, by a person (any member who can read it: a comment changes
 * nothing of the article, so the edit lease and the workflow do not apply). `body` is already
 * sanitised plain text (noteTextSchema).
 */
export async function addArticleNote(actor: Actor, articleId: string, body: string): Promise<NoteRecord> {
  assertMemberCan(actor, 'articles:read')
  const tenantId = actor.tenant.id
  await assertArticle(tenantId, articleId)
  const row = await tenantDb(tenantId).articleNote.create({
    data: { id: createId('not'), tenantId, articleId, authorId: actor.user.id, kind: 'comment', body },
    include,
  })
  const [record] = await toRecords(tenantId, [row])
  return record!
}
