import { NotFoundError } from '../errors.ts'
import { tenantDb } from '../tenancy/tenant-db.ts'
import { toApiStatus, type ApiStatus } from './article-status.ts'
import { assertCan } from '../auth/permissions.ts'
import type { Actor } from '../tenancy/actor.ts'

export type ArticleHistoryEntry = {
  id: string
  from_state: ApiStatus
  to_state: ApiStatus
  /** Null when the system acted (a scheduled publication) or the user was deleted. */
  actor: { id: string; name: string } | null
  at: string
  /** Set on the row that scheduled a publication: approved → published, due at this instant. */
  publish_at: string | null
  /** True on the row that cancelled the schedule in publish_at (the article stayed approved). */
  schedule_cancelled: boolean
}

/** The article's workflow moves, oldest first, with who made each. */
export async function listArticleHistory(actor: Actor, articleId: string): Promise<ArticleHistoryEntry[]> {
  assertCan(actor, 'articles:read')
  const tdb = tenantDb(actor.tenant.id)
  const article = await tdb.article.findUnique({ where: { id: articleId }, select: { id: true } })
  if (!article) throw new NotFoundError('article', articleId)
  const rows = await tdb.articleTransition.findMany({
    where: { articleId },
    include: { actor: { select: { id: true, name: true } } },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  })
  return rows.map((row) => ({
    id: row.id,
    from_state: toApiStatus(row.fromState),
    to_state: toApiStatus(row.toState),
    actor: row.actor,
    at: row.createdAt.toISOString(),
    publish_at: row.publishAt?.toISOString() ?? null,
    schedule_cancelled: row.scheduleCancelled,
  }))
}
