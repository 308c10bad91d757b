import { assertCan } from '../auth/permissions.ts'
import { NotFoundError } from '../errors.ts'
import type { Actor } from '../tenancy/actor.ts'
import { tenantSql } from '../tenancy/tenant-sql.ts'
import { articleGeneration } from './article-totals.ts'
import { liveLockExpression, lockFromJson, type ArticleLock } from './edit-lease.ts'
import type { ApiStatus } from './article-status.ts'

export type ArticleWatch =
  | { unchanged: true; generation: string | null }
  | { unchanged: false; generation: string | null; version: number; status: ApiStatus; lock: ArticleLock | null; edited_by: string | null }

/**
 * What a page showing an article polls (every few seconds) to learn that it changed underneath:
 * another save, a move, a publication, a take-over of its lease. Every one of those advances the
 * newsroom's article generation before its writer answers (commitArticleChange, and the lease's
 * claims and releases), so a page that sends the generation it last saw is answered "unchanged"
 * from one read of that counter (Redis, shared by the instances), without touching PostgreSQL;
 * otherwise one indexed read gives the version, state and lease. A lease's renewal does not
 * advance it: it changes nothing a watcher shows.
 */
export async function watchArticle(actor: Actor, articleId: string, knownGeneration?: string, generationRead?: Promise<string | null>): Promise<ArticleWatch> {
  assertCan(actor, 'articles:read')
  // A read of the generation the caller began already (beside the session read), if it did.
  const generation = await (generationRead ?? articleGeneration(actor.tenant.id))
  if (generation !== null && knownGeneration === generation) return { unchanged: true, generation }
  const [row] = await tenantSql(actor.tenant.id).rows<{ version: number; status: ApiStatus; lock: ArticleLock | null; edited_by: string | null }>(
    `SELECT version, status::text AS status, ${liveLockExpression('articles', 'now()')} AS lock,
       (SELECT name FROM users WHERE users.id = articles.edited_by_id) AS edited_by
     FROM articles WHERE tenant_id = $1 AND id = $2`,
    [articleId],
  )
  if (!row) throw new NotFoundError('article', articleId)
  return { unchanged: false, generation, version: row.version, status: row.status, lock: lockFromJson(row.lock), edited_by: row.edited_by }
}
