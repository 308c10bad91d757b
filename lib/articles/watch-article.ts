import { createHash } from 'node:crypto'
import { assertCan } from '../auth/permissions.ts'
import { NotFoundError } from '../errors.ts'
import type { Actor } from '../tenancy/actor.ts'
import { tenantSql } from '../tenancy/tenant-sql.ts'
import { liveLockExpression, lockFromJson, type PortalLock } from './edit-lease.ts'
import type { ApiStatus } from './article-status.ts'

/**
 * The change that made the article's current version, as its records name it: who acted (the
 * history row's or the revision's actor, not the article's last content editor, who is often the
 * author of a story someone else then moved) and what they did. `move` is the workflow move
 * (null for a save); `note` the note that went with it.
 */
export type LastChange = {
  actor_id: string | null
  actor_name: string | null
  move: { from_state: ApiStatus; to_state: ApiStatus; publish_at: string | null; schedule_cancelled: boolean } | null
  note: string | null
  /** When it was made (the server's clock, PostgreSQL's spelling): a page compares it with its own lease's end, never with the browser's clock. */
  at: string | null
}

/** What a watcher is shown of an article: its version, state, live lease, last editor and the change that made this version. */
export type ArticleWatchState = { version: number; status: ApiStatus; lock: PortalLock | null; edited_by: string | null; last_change: LastChange | null }

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
  return `${article}.version, ${article}.status::text AS status, ${liveLockExpression(article, 'now()', { portal: true })} AS lock,
    (SELECT name FROM users editor WHERE editor.id = ${article}.edited_by_id) AS edited_by,
    ${lastChangeExpression(article)} AS last_change`
}

/**
 * Who made the current version and how, from the row that records it: the history row of a move
 * (with its note), else the revision of a save, else the last editor (a change that keeps no row).
 * Each is found by the version it made, so the answer names the actor of this version, never an
 * earlier one; a few rows per article, read through their article's index.
 */
function lastChangeExpression(article: string): string {
  return `COALESCE(
    (SELECT json_build_object('actor_id', moved.actor_id, 'actor_name', mover.name,
        'move', json_build_object('from_state', moved.from_state::text, 'to_state', moved.to_state::text, 'publish_at', moved.publish_at, 'schedule_cancelled', moved.schedule_cancelled),
        'note', (SELECT note.body FROM article_notes note WHERE note.article_id = moved.article_id AND note.transition_id = moved.id LIMIT 1),
        'at', moved.created_at)
      FROM article_transitions moved LEFT JOIN users mover ON mover.id = moved.actor_id
      WHERE moved.article_id = ${article}.id AND moved.version = ${article}.version ORDER BY moved.created_at DESC LIMIT 1),
    (SELECT json_build_object('actor_id', revision.actor_id, 'actor_name', reviser.name, 'move', NULL, 'note', NULL, 'at', revision.created_at)
      FROM article_revisions revision LEFT JOIN users reviser ON reviser.id = revision.actor_id
      WHERE revision.tenant_id = ${article}.tenant_id AND revision.article_id = ${article}.id AND revision.version = ${article}.version LIMIT 1),
    (SELECT json_build_object('actor_id', editor.id, 'actor_name', editor.name, 'move', NULL, 'note', NULL, 'at', ${article}.updated_at) FROM users editor WHERE editor.id = ${article}.edited_by_id)
  )`
}

/** The answer for the state read (null: no such article in the reader's newsroom, a 404). */
export function watchAnswer(actor: Actor, articleId: string, state: ArticleWatchState | null, knownTag?: string): ArticleWatch {
  assertCan(actor, 'articles:read')
  if (!state) throw new NotFoundError('article', articleId)
  const lock = lockFromJson(state.lock)
  const tag = watchTag(state)
  if (knownTag === tag) return { unchanged: true, tag }
  return { unchanged: false, tag, version: state.version, status: state.status, lock, edited_by: state.edited_by, last_change: state.last_change ?? null }
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
