import { NotFoundError } from '../errors.ts'
import { tenantDb } from '../tenancy/tenant-db.ts'
import { toApiStatus } from './article-status.ts'
import type { ArticleEditingEntry, ArticleHistoryItem } from './history-entry.ts'
import { assertCan } from '../auth/permissions.ts'
import type { Actor } from '../tenancy/actor.ts'

export type { ArticleHistoryEntry, ArticleEditingEntry, ArticleHistoryItem } from './history-entry.ts'
export { isMove } from './history-entry.ts'

/** The article's workflow moves (with their notes) and take-overs of its editing, oldest first, with who made each. */
export async function listArticleHistory(actor: Actor, articleId: string): Promise<ArticleHistoryItem[]> {
  assertCan(actor, 'articles:read')
  const tdb = tenantDb(actor.tenant.id)
  const article = await tdb.article.findUnique({ where: { id: articleId }, select: { id: true } })
  if (!article) throw new NotFoundError('article', articleId)
  const [rows, notes] = await Promise.all([
    tdb.articleTransition.findMany({
      where: { articleId },
      include: { actor: { select: { id: true, name: true } } },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    }),
    tdb.articleNote.findMany({
      where: { articleId, OR: [{ kind: { in: ['take_over', 'lock_override'] } }, { transitionId: { not: null } }] },
      include: { author: { select: { id: true, name: true } } },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    }),
  ])
  const moveNotes = new Map(notes.filter((note) => note.transitionId).map((note) => [note.transitionId!, note.body]))
  const moves: ArticleHistoryItem[] = rows.map((row) => ({
    kind: 'move',
    id: row.id,
    from_state: toApiStatus(row.fromState),
    to_state: toApiStatus(row.toState),
    actor: row.actor,
    at: row.createdAt.toISOString(),
    publish_at: row.publishAt?.toISOString() ?? null,
    schedule_cancelled: row.scheduleCancelled,
    note: moveNotes.get(row.id) ?? null,
  }))
  const editing: ArticleHistoryItem[] = notes
    .filter((note) => note.kind === 'take_over' || note.kind === 'lock_override')
    .map((note) => ({ kind: note.kind as ArticleEditingEntry['kind'], id: note.id, actor: note.author, at: note.createdAt.toISOString(), note: note.body }))
  return [...moves, ...editing].sort((a, b) => a.at.localeCompare(b.at) || a.id.localeCompare(b.id))
}
