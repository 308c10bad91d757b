import { tenantSql } from '../tenancy/tenant-sql.ts'
import { articleColumns, toArticle, type StoredArticle } from './article-rows.ts'
import type { Article } from '../db/generated/client.ts'
import { sendBackFromStates } from './article-status.ts'

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

/** The send-back moves' from-states as SQL (constants), as article_transitions_returns_idx names them. */
const sendBackFrom = sendBackFromStates.map((state) => `'${state}'`).join(', ')

/**
 * An author's drafts whose last workflow move sent them back (isSendBack: from review, or
 * approved, to draft), most recently returned first, with who sent each back and the note they
 * gave: what the author has to act on.
 *
 * Walked from the newsroom's send-backs, newest first (article_transitions_returns_idx), each
 * kept when no later move of its article exists, until the page is full: a newsroom has far fewer
 * send-backs than an author has drafts. Looking up the last move of each of the author's drafts
 * instead took 444 ms for an admin with 47,620 drafts in a newsroom of 1,000,000 articles and
 * 190,000 moves (EXPLAIN ANALYZE; now 2.3 ms), most of the desk's time: desk.get p50 1,177 ms in
 * bench/results/2026-11-26-05-30.md, 29 ms in 2026-11-26-07-42.md. For an author with few drafts
 * the planner starts from their drafts instead.
 */
export async function listReturnedFromReview(tenantId: string, { authorId, limit }: { authorId: string; limit: number }): Promise<ReturnedArticle[]> {
  const rows = await tenantSql(tenantId).rows<StoredArticle & { returnedAt: Date; returnedBy: string | null; returnNote: string | null }>(
    `SELECT ${articleColumns}, returns.returned_at AS "returnedAt",
       (SELECT name FROM users WHERE users.id = returns.mover_id) AS "returnedBy",
       (SELECT body FROM article_notes n WHERE n.transition_id = returns.move_id ORDER BY n.created_at DESC LIMIT 1) AS "returnNote"
     FROM (
       SELECT t.id AS move_id, t.article_id, t.actor_id AS mover_id, t.created_at AS returned_at FROM article_transitions t
       WHERE t.tenant_id = $1 AND t.from_state IN (${sendBackFrom}) AND t.to_state = 'draft' AND NOT t.schedule_cancelled
         AND NOT EXISTS (
           SELECT 1 FROM article_transitions later
           WHERE later.article_id = t.article_id AND NOT later.schedule_cancelled AND (later.created_at, later.id) > (t.created_at, t.id)
         )
     ) returns
     JOIN articles ON articles.id = returns.article_id
     WHERE articles.tenant_id = $1 AND articles.author_id = $2 AND articles.status = 'draft'
     ORDER BY returns.returned_at DESC, returns.move_id DESC LIMIT $3`,
    [authorId, limit],
  )
  return rows.map(({ returnedAt, returnedBy, returnNote, ...row }) => ({ ...toArticle(row), returnedAt, returnedBy, returnNote }))
}

export type TakenDownArticle = Article & { takenDownAt: Date; takenDownBy: string | null; takeDownNote: string | null }

/**
 * An author's stories taken off the site (published, then moved to draft or archived) and still
 * where that move left them, most recent first, with who did it and the note they gave: a writer
 * learns their live story came down, and why, without searching their drafts for it.
 * Walked from the newsroom's take-downs (article_transitions_takedowns_idx), as
 * listReturnedFromReview walks its send-backs.
 */
export async function listTakenDown(tenantId: string, { authorId, limit }: { authorId: string; limit: number }): Promise<TakenDownArticle[]> {
  const rows = await tenantSql(tenantId).rows<StoredArticle & { takenDownAt: Date; takenDownBy: string | null; takeDownNote: string | null }>(
    `SELECT ${articleColumns}, downs.taken_down_at AS "takenDownAt",
       (SELECT name FROM users WHERE users.id = downs.mover_id) AS "takenDownBy",
       (SELECT body FROM article_notes n WHERE n.transition_id = downs.move_id ORDER BY n.created_at DESC LIMIT 1) AS "takeDownNote"
     FROM (
       SELECT t.id AS move_id, t.article_id, t.actor_id AS mover_id, t.to_state, t.created_at AS taken_down_at FROM article_transitions t
       WHERE t.tenant_id = $1 AND t.from_state = 'published' AND t.to_state IN ('draft', 'archived') AND NOT t.schedule_cancelled
         AND NOT EXISTS (
           SELECT 1 FROM article_transitions later
           WHERE later.article_id = t.article_id AND NOT later.schedule_cancelled AND (later.created_at, later.id) > (t.created_at, t.id)
         )
     ) downs
     JOIN articles ON articles.id = downs.article_id
     WHERE articles.tenant_id = $1 AND articles.author_id = $2 AND articles.status = downs.to_state
     ORDER BY downs.taken_down_at DESC, downs.move_id DESC LIMIT $3`,
    [authorId, limit],
  )
  return rows.map(({ takenDownAt, takenDownBy, takeDownNote, ...row }) => ({ ...toArticle(row), takenDownAt, takenDownBy, takeDownNote }))
}
