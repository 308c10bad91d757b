import { tenantSql } from '../tenancy/tenant-sql.ts'
import { articleColumns, toArticle, type StoredArticle } from './article-rows.ts'
import type { Article } from '../db/generated/client.ts'

/**
 * Approved articles whose scheduled publication falls from `from` to before `until`, soonest
 * first: what goes live without anyone acting. One already due is overdue, not upcoming
 * (listOverduePublications): it did not go live at its time, so nobody should wait for it.
 */
export async function listUpcomingPublications(tenantId: string, { from, until, limit }: { from: Date; until: Date; limit: number }): Promise<Article[]> {
  const rows = await tenantSql(tenantId).rows<StoredArticle>(
    `SELECT ${articleColumns} FROM articles
     WHERE tenant_id = $1 AND status = 'approved' AND scheduled_publish_at >= $2 AND scheduled_publish_at < $3
     ORDER BY scheduled_publish_at, id LIMIT $4`,
    [from, until, limit],
  )
  return rows.map(toArticle)
}

/** Approved articles whose scheduled time has passed without their going live, oldest first, and how many. */
export async function listOverduePublications(tenantId: string, { now, limit }: { now: Date; limit: number }): Promise<{ total: number; items: Article[] }> {
  const sql = tenantSql(tenantId)
  const where = `WHERE tenant_id = $1 AND status = 'approved' AND scheduled_publish_at < $2`
  const [rows, [count]] = await Promise.all([
    sql.rows<StoredArticle>(`SELECT ${articleColumns} FROM articles ${where} ORDER BY scheduled_publish_at, id LIMIT $3`, [now, limit]),
    sql.rows<{ total: number }>(`SELECT count(*)::int AS total FROM articles ${where}`, [now]),
  ])
  return { total: count?.total ?? 0, items: rows.map(toArticle) }
}

export type ReturnedArticle = Article & { returnedAt: Date; returnedBy: string | null; returnNote: string | null }

/**
 * An author's drafts whose last workflow move sent them back from review (in-review → draft),
 * most recently returned first, with who sent each back and the note they gave: what the author
 * has to act on.
 */
export async function listReturnedFromReview(tenantId: string, { authorId, limit }: { authorId: string; limit: number }): Promise<ReturnedArticle[]> {
  const rows = await tenantSql(tenantId).rows<StoredArticle & { returnedAt: Date; returnedBy: string | null; returnNote: string | null }>(
    `SELECT ${articleColumns}, last_move.moved_at AS "returnedAt",
       (SELECT name FROM users WHERE users.id = last_move.actor_id) AS "returnedBy",
       (SELECT body FROM article_notes n WHERE n.transition_id = last_move.move_id ORDER BY n.created_at DESC LIMIT 1) AS "returnNote"
     FROM articles
     CROSS JOIN LATERAL (
       SELECT t.id AS move_id, t.actor_id, t.from_state, t.to_state, t.created_at AS moved_at FROM article_transitions t
       WHERE t.tenant_id = $1 AND t.article_id = articles.id AND NOT t.schedule_cancelled
       ORDER BY t.created_at DESC, t.id DESC LIMIT 1
     ) last_move
     WHERE tenant_id = $1 AND author_id = $2 AND status = 'draft'
       AND last_move.from_state = 'in-review' AND last_move.to_state = 'draft'
     ORDER BY last_move.moved_at DESC, articles.id DESC LIMIT $3`,
    [authorId, limit],
  )
  return rows.map(({ returnedAt, returnedBy, returnNote, ...row }) => ({ ...toArticle(row), returnedAt, returnedBy, returnNote }))
}
