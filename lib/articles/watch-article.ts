import { createHash } from 'node:crypto'
import { assertCan } from '../auth/permissions.ts'
import { NotFoundError } from '../errors.ts'
import type { Actor } from '../tenancy/actor.ts'
import { tenantSql } from '../tenancy/tenant-sql.ts'
import { liveLockExpression, lockFromJson, type ArticleLock } from './edit-lease.ts'
import type { ApiStatus } from './article-status.ts'

/** What a watcher is shown of an article: its version, state, live lease and last editor. */
export type ArticleWatchState = { version: number; status: ApiStatus; lock: ArticleLock | null; edited_by: string | null }

export type ArticleWatch = { unchanged: true; tag: string } | ({ unchanged: false; tag: string } & ArticleWatchState)

/**
 * What a page showing an article polls (every few seconds) to learn that it changed underneath:
 * another save, a move, a publication, a take-over of its lease, or the lease lapsing. The answer
 * carries a tag of exactly what the page shows (watchTag); a page that sends the tag it last saw
 * is answered "unchanged". A lease's renewal moves only its expiry, which no watcher shows, so it
 * leaves the tag alone.
 *
 * The state is one indexed read of the article and its lease (articleWatchStateQuery). The
 * portal's poll route reads it in the same statement as the session (portal-watch-route.ts):
 * one round trip to PostgreSQL per poll and none to Redis, where reading the newsroom's article
 * generation beside the session cost a second round trip, and each round trip costs an idle
 * server ~200-450 µs of CPU to wake for (bench/results/editors-2026-11-26-07-09.md).
 */
export async function watchArticle(actor: Actor, articleId: string, knownTag?: string): Promise<ArticleWatch> {
  assertCan(actor, 'articles:read')
  const [row] = await tenantSql(actor.tenant.id).rows<ArticleWatchState>(
    `SELECT ${watchStateColumns('articles')} FROM articles WHERE tenant_id = $1 AND id = $2`,
    [articleId],
  )
  return watchAnswer(actor, articleId, row ?? null, knownTag)
}

/**
 * The watch state as a statement to read beside something else (the session: BesideSession in
 * lib/auth/portal-sessions.ts): `newsroomId` is the SQL naming the reader's newsroom, `$2` the
 * article's id. At most one row.
 */
export function articleWatchStateQuery(newsroomId: string): string {
  return `SELECT ${watchStateColumns('watched')} FROM articles watched WHERE watched.tenant_id = ${newsroomId} AND watched.id = $2`
}

function watchStateColumns(article: string): string {
  return `${article}.version, ${article}.status::text AS status, ${liveLockExpression(article, 'now()')} AS lock,
    (SELECT name FROM users editor WHERE editor.id = ${article}.edited_by_id) AS edited_by`
}

/** The answer for the state read (null: no such article in the reader's newsroom, a 404). */
export function watchAnswer(actor: Actor, articleId: string, state: ArticleWatchState | null, knownTag?: string): ArticleWatch {
  assertCan(actor, 'articles:read')
  if (!state) throw new NotFoundError('article', articleId)
  const lock = lockFromJson(state.lock)
  const tag = watchTag(state)
  if (knownTag === tag) return { unchanged: true, tag }
  return { unchanged: false, tag, version: state.version, status: state.status, lock, edited_by: state.edited_by }
}

/**
 * The watch states of several articles of one newsroom in one statement (the held polls of
 * portal-watch-route.ts, checked together every few seconds); an article missing from the map
 * is gone or not the newsroom's.
 */
export async function readWatchStates(tenantId: string, articleIds: string[]): Promise<Map<string, ArticleWatchState>> {
  const rows = await tenantSql(tenantId).rows<ArticleWatchState & { id: string }>(
    `SELECT articles.id, ${watchStateColumns('articles')} FROM articles WHERE tenant_id = $1 AND id = ANY($2::text[])`,
    [articleIds],
  )
  return new Map(rows.map(({ id, ...state }) => [id, state]))
}

/** A digest of what a watcher shows; the lease's expiry (moved by every renewal) is left out. */
export function watchTag({ version, status, lock: readLock, edited_by }: ArticleWatchState): string {
  // As the answer shows it: read in JSON, the lease's times are text in PostgreSQL's spelling.
  const lock = lockFromJson(readLock)
  const shown = [version, status, lock?.holder_id ?? '', lock?.holder_name ?? '', lock?.since ?? '', edited_by ?? ''].join('\n')
  return createHash('sha256').update(shown).digest('base64url').slice(0, 22)
}
