import { assertMemberCan } from '../auth/permissions.ts'
import { sqlPool } from '../db/client.ts'
import { preparedQuery } from '../db/prepared-query.ts'
import { ConflictError, ForbiddenError, NotFoundError } from '../errors.ts'
import { createId } from '../ids.ts'
import type { Actor } from '../tenancy/actor.ts'
import { tenantSql } from '../tenancy/tenant-sql.ts'
import { articleActionRefusal } from './article-action-refusal.ts'
import { articlesChanged } from './article-totals.ts'
import { fromApiStatus, type ApiStatus } from './article-status.ts'
import { leaseSeconds } from './lease-timing.ts'

export { leaseHeartbeatSeconds, leaseSeconds, watchIntervalSeconds } from './lease-timing.ts'

/** The lease as the article record shows it (`lock`). */
export type ArticleLock = { holder_id: string; holder_name: string; since: string; expires_at: string }

/**
 * The lease as the portal's pages see it: also whose live lease it took over (null when it began
 * on a free article), so a page of theirs that slept tells a take-over from its own claim's lapse
 * (lib/articles/lease-lapse.ts). Not in the /v1 record.
 */
export type PortalLock = ArticleLock & { taken_over_from_id: string | null }

export type LeaseClaim = {
  lock: ArticleLock
  /** Whose live lease this claim took over, if it took one. */
  took_over_from: { id: string; name: string } | null
}

type LeaseRow = { holder_id: string; holder_name: string; since: Date; expires_at: Date }

function toLock(row: LeaseRow): ArticleLock {
  return { holder_id: row.holder_id, holder_name: row.holder_name, since: row.since.toISOString(), expires_at: row.expires_at.toISOString() }
}

/**
 * The SQL expression of an article's live lease as `lock` JSON (null when none or lapsed), for
 * reads of one article; `article` names the articles row in the statement.
 */
export function liveLockExpression(article: string, now = '$3', { portal = false }: { portal?: boolean } = {}): string {
  const takenOverFrom = portal ? `, 'taken_over_from_id', l.taken_over_from_id` : ''
  return `(SELECT json_build_object('holder_id', l.holder_id, 'holder_name', u.name, 'since', l.since, 'expires_at', l.expires_at${takenOverFrom})
    FROM article_leases l JOIN users u ON u.id = l.holder_id WHERE l.article_id = ${article}.id AND l.expires_at > ${now})`
}

/** A lock read as JSON (liveLockExpression), with its times as the API writes them. */
export function lockFromJson<Lock extends ArticleLock>(lock: Lock | null): Lock | null {
  return lock && { ...lock, since: new Date(lock.since).toISOString(), expires_at: new Date(lock.expires_at).toISOString() }
}

/** The article's live lease, with how it began (PortalLock), or null. */
export async function readLiveLock(tenantId: string, articleId: string, now = new Date()): Promise<PortalLock | null> {
  const [row] = await tenantSql(tenantId).rows<LeaseRow & { taken_over_from_id: string | null }>(
    `SELECT l.holder_id, u.name AS holder_name, l.since, l.expires_at, l.taken_over_from_id FROM article_leases l JOIN users u ON u.id = l.holder_id
     WHERE l.tenant_id = $1 AND l.article_id = $2 AND l.expires_at > $3`,
    [articleId, now],
  )
  return row ? { ...toLock(row), taken_over_from_id: row.taken_over_from_id } : null
}

/**
 * An article_locked refusal: its problem (`extra`) carries the lock as /v1 shows it, and `lock`
 * the lease as the portal sees it, so the portal's ask answers from the refusal without reading
 * the lease again (askForEditLease).
 */
export class LeaseHeldError extends ConflictError {
  constructor(
    message: string,
    /** `taken_over_from_id` is absent where the refusing read did not ask (a write's check, leaseRefusal), never a guessed null. */
    readonly lock: ArticleLock & { taken_over_from_id?: string | null },
  ) {
    const { holder_id, holder_name, since, expires_at } = lock
    super('article_locked', message, { holder_id, holder_name, since, expires_at })
  }
}

/** "Edith Hale has had this article open since 22:41 UTC; their lease runs until 22:47 UTC." */
export function lockedRefusal(lock: ArticleLock & { taken_over_from_id?: string | null }): LeaseHeldError {
  const time = (iso: string) => `${iso.slice(11, 16)} UTC`
  return new LeaseHeldError(
    `${lock.holder_name} is editing this article (since ${time(lock.since)}; their lease runs until ${time(lock.expires_at)} unless renewed). ` +
      'Nothing was changed. Wait, ask them, or take over the article (the API: send override_lock: true to write anyway, which is recorded).',
    lock,
  )
}

/**
 * What a write must do about the article's lease: nothing when there is no live lease, it is
 * the writer's own, or the writer is the system (scheduled work); a 409 article_locked when it
 * is someone else's and the write did not say override_lock; with override_lock, the lease it
 * overrode (to record). Every write path asks it, through changeCurrentVersion.
 */
export function leaseRefusal(lock: ArticleLock | null, writer: LeaseWriter): { overridden: ArticleLock | null } {
  if (!lock || writer.userId === null || lock.holder_id === writer.userId) return { overridden: null }
  if (!writer.overrideLock) throw lockedRefusal(lock)
  return { overridden: lock }
}

/** Who writes, for the lease check: the acting person (null for the system) and whether they said override_lock. */
export type LeaseWriter = { userId: string | null; overrideLock?: boolean }

export function leaseWriter(actor: Actor, overrideLock?: boolean): LeaseWriter {
  return { userId: actor.user?.id ?? null, overrideLock: overrideLock === true }
}

/** Records a write that overrode someone's live lease: a note in the article's thread and an audit entry, committed together. */
export async function recordLockOverride(tenantId: string, articleId: string, userId: string, overridden: ArticleLock): Promise<void> {
  await sqlPool.query(
    `WITH note AS (
       INSERT INTO article_notes (id, tenant_id, article_id, author_id, kind, body) VALUES ($1, $2, $3, $4, 'lock_override', $5)
     )
     INSERT INTO audit_entries (id, tenant_id, actor_id, action, target_type, target_id, metadata)
     VALUES ($6, $2, $4, 'article.lock_overridden', 'article', $3, $7)`,
    [
      createId('not'),
      tenantId,
      articleId,
      userId,
      `Wrote over ${overridden.holder_name}'s edit lease.`,
      createId('aud'),
      JSON.stringify({ holder_id: overridden.holder_id, holder_name: overridden.holder_name, expires_at: overridden.expires_at }),
    ],
  )
}

/** What the portal's article page is told when it asks for the lease: someone else's live lease is an answer, not a failure. */
export type LeaseAnswer = ({ mine: true } & LeaseClaim) | { mine: false; lock: PortalLock; took_over_from: null }

/**
 * The portal's ask for the lease (its first edit, its heartbeat, a take-over): claimEditLease,
 * with someone else's live lease answered as `mine: false` (the page then offers read-only or
 * take over) instead of a 409.
 */
export async function askForEditLease(actor: Actor, articleId: string, options: { takeOver?: boolean; session?: string } = {}): Promise<LeaseAnswer> {
  try {
    return { mine: true, ...(await claimEditLease(actor, articleId, options)) }
  } catch (error) {
    // The claim's refusal read the lease with how it began (readLiveLock).
    if (error instanceof LeaseHeldError) return { mine: false, lock: { ...error.lock, taken_over_from_id: error.lock.taken_over_from_id ?? null }, took_over_from: null }
    throw error
  }
}

/**
 * The claim a lease holds for each editing session of its holder (`article_leases.sessions`: the
 * session's key → when its claim lapses, in epoch milliseconds). One person may have the article
 * open in two tabs: each page is a session of its own (`session`, a random id the page makes when
 * it opens), and a claim made without one (/v1) is the session ''. The lease is the person's
 * while any of their sessions' claims is live: a save in one tab lets go of that tab's claim
 * only (releaseEditLease), never of the other tab's, whose unsaved edits still hold the article.
 */
const apiSession = ''

/** The SQL of a lease row's session claims still live at `nowMs` (a parameter), without `except` (a parameter, or null). */
function liveSessions(sessions: string, nowMs: string, except = 'NULL::text'): string {
  return `(SELECT coalesce(jsonb_object_agg(entry.key, entry.value), '{}'::jsonb) FROM jsonb_each(${sessions}) entry
    WHERE (entry.value)::bigint > ${nowMs} AND entry.key IS DISTINCT FROM ${except})`
}

/**
 * Claims (or renews) the edit lease on an article for the acting person, in one statement: the
 * row is inserted, or updated only where the lease lapsed, is already theirs, or `takeOver` was
 * asked. The claim is also the editing session's (`session`; see apiSession): a renewal by the
 * holder keeps the claims of their other live sessions, anything else starts with this one. Two claims racing for a free article cannot both win: PostgreSQL serialises them on
 * the row's key and re-checks the condition against the winner's row, so the loser updates
 * nothing and is told who holds it (409 article_locked). A take-over of someone's live lease is
 * noted in the article's thread (its History) and audited, in the same statement.
 *
 * Who may claim is who may edit (articleActionRefusal, which lets writers edit their own
 * articles): a lease is the intent to write. The /v1 door asks its token for articles:write.
 */
export async function claimEditLease(actor: Actor, articleId: string, options: { takeOver?: boolean; session?: string; now?: Date } = {}): Promise<LeaseClaim> {
  assertMemberCan(actor, 'articles:read')
  const tenantId = actor.tenant.id
  const now = options.now ?? new Date()
  // Both statements prepared (lib/db/prepared-query.ts): every open editor with unsaved edits
  // renews every 30 s, and planning the claim's four-part statement each time cost PostgreSQL
  // more than running it. On the primary, as every read of a write is (outside readOnly).
  const [article] = await tenantSql(tenantId).rows<{ authorId: string; status: ApiStatus }>(
    'SELECT author_id AS "authorId", status::text AS status FROM articles WHERE tenant_id = $1 AND id = $2',
    [articleId],
    { prepare: true },
  )
  if (!article) throw new NotFoundError('article', articleId)
  const refusal = articleActionRefusal(actor.user, { authorId: article.authorId, status: fromApiStatus(article.status) }, { kind: 'edit' })
  if (refusal) throw new ForbiddenError(refusal)

  const expiresAt = new Date(now.getTime() + leaseSeconds * 1000)
  const { rows } = await preparedQuery<LeaseRow & { previous_holder_id: string | null; previous_holder_name: string | null; previous_live: boolean | null }>(
    sqlPool,
    'edit-lease-claim',
    `WITH previous_lease AS (
       -- Locked, so a claim racing another take-over reads the lease as that one left it (it waits
       -- for it), and its answer, note and audit name the holder it really took it from, as
       -- taken_over_from_id does; read before the claim below (which reads it for that). Alone:
       -- a row joined in a locking read is not read again after the wait.
       SELECT holder_id, expires_at FROM article_leases WHERE article_id = $2 AND tenant_id = $1 FOR UPDATE
     ), previous AS (
       SELECT l.holder_id, u.name, l.expires_at > $4 AS live FROM previous_lease l JOIN users u ON u.id = l.holder_id
     ), claimed AS (
       INSERT INTO article_leases (article_id, tenant_id, holder_id, since, expires_at, sessions)
       SELECT $2, $1, $3, $4, $5, jsonb_build_object($9::text, $10::bigint) FROM (SELECT count(*) FROM previous_lease) read_first
       ON CONFLICT (article_id) DO UPDATE SET
         holder_id = EXCLUDED.holder_id,
         -- A renewal keeps when the holder began; anything else begins now.
         since = CASE WHEN article_leases.holder_id = EXCLUDED.holder_id AND article_leases.expires_at > $4 THEN article_leases.since ELSE EXCLUDED.since END,
         -- A renewal keeps the holder's other sessions' live claims (their other tabs); anything else holds this session's only.
         sessions = CASE WHEN article_leases.holder_id = EXCLUDED.holder_id AND article_leases.expires_at > $4
           THEN ${liveSessions('article_leases.sessions', '$11::bigint')} || EXCLUDED.sessions ELSE EXCLUDED.sessions END,
         expires_at = GREATEST(EXCLUDED.expires_at, CASE WHEN article_leases.holder_id = EXCLUDED.holder_id THEN article_leases.expires_at END),
         -- A renewal keeps how the lease began; a claim over someone's live lease took it from them.
         taken_over_from_id = CASE WHEN article_leases.expires_at <= $4 THEN NULL
           WHEN article_leases.holder_id = EXCLUDED.holder_id THEN article_leases.taken_over_from_id ELSE article_leases.holder_id END
       WHERE article_leases.expires_at <= $4 OR article_leases.holder_id = EXCLUDED.holder_id OR $6
       RETURNING holder_id, since, expires_at
     ), noted AS (
       INSERT INTO article_notes (id, tenant_id, article_id, author_id, kind, body)
       SELECT $7, $1, $2, $3, 'take_over', 'Took over editing from ' || previous.name || '.'
       FROM claimed JOIN previous ON previous.live AND previous.holder_id <> claimed.holder_id
     ), audited AS (
       INSERT INTO audit_entries (id, tenant_id, actor_id, action, target_type, target_id, metadata)
       SELECT $8, $1, $3, 'article.lock_taken_over', 'article', $2, json_build_object('from_holder_id', previous.holder_id, 'from_holder_name', previous.name)::jsonb
       FROM claimed JOIN previous ON previous.live AND previous.holder_id <> claimed.holder_id
     )
     SELECT claimed.holder_id, u.name AS holder_name, claimed.since, claimed.expires_at,
            previous.holder_id AS previous_holder_id, previous.name AS previous_holder_name, previous.live AS previous_live
     FROM claimed JOIN users u ON u.id = claimed.holder_id LEFT JOIN previous ON true`,
    [tenantId, articleId, actor.user.id, now, expiresAt, options.takeOver === true, createId('not'), createId('aud'), options.session ?? apiSession, expiresAt.getTime(), now.getTime()],
  )
  const claimed = rows[0]
  if (!claimed) {
    const lock = await readLiveLock(tenantId, articleId, now)
    // The other lease lapsed between the statement and this read: try once more.
    if (!lock) return claimEditLease(actor, articleId, options)
    throw lockedRefusal(lock)
  }
  const renewed = claimed.previous_live === true && claimed.previous_holder_id === claimed.holder_id
  // The lease is part of the article's record (`lock`): a new holder, not a renewal, must not
  // be hidden by a cached answer (lib/api/response-cache.ts). A renewal only moves expires_at.
  if (!renewed) await articlesChanged([tenantId])
  const tookOver = claimed.previous_live === true && claimed.previous_holder_id !== claimed.holder_id
  return {
    lock: toLock(claimed),
    took_over_from: tookOver ? { id: claimed.previous_holder_id!, name: claimed.previous_holder_name! } : null,
  }
}

/**
 * Lets go of the acting person's lease on the article, if they hold one; another's lease is left
 * alone. With `session` (the portal's page, saved or left), only that session's claim goes: the
 * lease ends when none of the holder's other sessions still has a live claim (their other tab
 * with unsaved edits keeps it, and the lease then runs until that claim's own end). Without one
 * (/v1's DELETE), the whole lease goes. `released`: the lease ended.
 */
export async function releaseEditLease(actor: Actor, articleId: string, options: { session?: string; now?: Date } = {}): Promise<{ released: boolean }> {
  assertMemberCan(actor, 'articles:read')
  const tenantId = actor.tenant.id
  const [article] = await tenantSql(tenantId).rows<{ id: string }>('SELECT id FROM articles WHERE tenant_id = $1 AND id = $2', [articleId])
  if (!article) throw new NotFoundError('article', articleId)
  let released: boolean
  if (options.session === undefined) {
    const { rowCount } = await sqlPool.query('DELETE FROM article_leases WHERE tenant_id = $1 AND article_id = $2 AND holder_id = $3', [tenantId, articleId, actor.user.id])
    released = (rowCount ?? 0) > 0
  } else {
    const now = options.now ?? new Date()
    // One statement, so a claim of another session racing it is either kept or comes after it
    // (the row's lock orders them). With no other live claim the lease lapses at once (its end is
    // now), and the row is then deleted unless a claim renewed it meanwhile.
    const remaining = liveSessions('article_leases.sessions', '$5::bigint', '$4::text')
    const { rows } = await sqlPool.query<{ ended: boolean }>(
      `UPDATE article_leases SET sessions = ${remaining},
         expires_at = COALESCE((SELECT to_timestamp(max((entry.value)::bigint) / 1000.0) FROM jsonb_each(${remaining}) entry), LEAST(article_leases.expires_at, $6))
       WHERE tenant_id = $1 AND article_id = $2 AND holder_id = $3
       RETURNING sessions = '{}'::jsonb AS ended`,
      [tenantId, articleId, actor.user.id, options.session, now.getTime(), now],
    )
    released = rows[0]?.ended === true
    if (released) {
      await sqlPool.query('DELETE FROM article_leases WHERE tenant_id = $1 AND article_id = $2 AND holder_id = $3 AND expires_at <= $4', [tenantId, articleId, actor.user.id, now])
    }
  }
  if (released) await articlesChanged([tenantId])
  return { released }
}
