import { recordAudit } from '../audit.ts'
import type { Prisma } from '../db/generated/client.ts'
import type { Plan, Role } from '../db/generated/enums.ts'
import { sqlPool } from '../db/client.ts'
import { preparedQuery } from '../db/prepared-query.ts'
import { ConflictError, NotFoundError } from '../errors.ts'
import { createId } from '../ids.ts'
import { displayAddress } from '../security/cidr.ts'
import type { Actor } from '../tenancy/actor.ts'
import { systemDb, tenantDb } from '../tenancy/tenant-db.ts'
import type { ActiveMember } from './members.ts'
import { lockMembersFactors, type RecoveryCodeWriter } from './recovery-codes.ts'
import type { TenantTwoFactorPolicy } from './two-factor-policy.ts'

/** Why a session ended, as the row keeps it. */
export type SessionEndReason = 'signed_out' | 'ended_by_member' | 'password_changed' | 'deactivated' | 'factors_reset'

/** How long a session lasts without a request: next-auth's own maxAge (auth-options.ts) agrees. */
export const sessionIdleLimitMs = 8 * 60 * 60 * 1000
// Last seen is written at most this often per session: a portal page makes several requests,
// and "last seen" to the minute is all the Security page shows.
const lastSeenIntervalMs = 60_000

/** The session facts a request carries (through the JWT's jwt callback) to the doors. */
export type PortalSessionState = { id: string; reauthenticatedAt: Date }

/**
 * A sign-in's provedSince (startPortalSession): the earlier of when its request arrived and the
 * member's credentialsChangedAt as read with the proof (the password hash, the passkey, the member
 * an identity provider's answer names; the epoch if it never moved). The session is then refused
 * when a change that ends the member's sessions was stamped after the request arrived, or
 * committed after the proof was read. The clock alone missed the second: a change stamps
 * credentialsChangedAt before it commits, and a sign-in that arrived after the stamp but read the
 * proof before the commit checked the OLD password (or a passkey in a list just signed out) and
 * kept its session (break58).
 */
export function proofBegan(arrivedAt: Date, credentialsChangedAtAsRead: Date | null): Date {
  const read = credentialsChangedAtAsRead ?? new Date(0)
  return read.getTime() < arrivedAt.getTime() ? read : arrivedAt
}

/** A sign-in whose proof began before the member's sessions were ended (a password change, a deactivation, a reset, "sign out everywhere"): it starts no session. */
export class SignInOvertakenError extends Error {}

/**
 * A new session for a member who just proved who they are. `provedSince`: when the proof (a
 * password, a passkey, a code; for a two-step sign-in its first step) began to be checked. If the
 * member's sessions were ended since (credentialsChangedAt: a password change, a deactivation, an
 * admin's reset, "sign out everywhere else"), the proof may rest on what the change removed (the
 * old password, a reset passkey), so no session starts (SignInOvertakenError); nor for a member
 * deactivated meanwhile. Read under the member's factor lock, which every change that ends the
 * member's sessions holds until it commits (lockMemberToEndSessions): a sign-in checked just
 * before such a change cannot start its session just after the change ended the member's
 * sessions (break55, sec57, sec58).
 */
export async function startPortalSession(member: { id: string; tenantId: string }, from: { userAgent?: string | null; address?: string | null }, provedSince: Date): Promise<string> {
  return systemDb().$transaction(async (tx) => {
    await lockMembersFactors(tx, member.id)
    const user = await tx.user.findUnique({ where: { id: member.id }, select: { credentialsChangedAt: true, active: true } })
    if (!user?.active || (user.credentialsChangedAt && user.credentialsChangedAt.getTime() > provedSince.getTime())) throw new SignInOvertakenError('Your sign-in methods changed while you were signing in. Sign in again.')
    return createPortalSession(tx, member, from)
  })
}

async function createPortalSession(client: { portalSession: { create(args: { data: Prisma.PortalSessionUncheckedCreateInput }): PromiseLike<unknown> } }, member: { id: string; tenantId: string }, from: { userAgent?: string | null; address?: string | null }): Promise<string> {
  const id = createId('ses')
  const now = new Date()
  await client.portalSession.create({
    data: {
      id,
      tenantId: member.tenantId,
      userId: member.id,
      userAgent: (from.userAgent ?? '').slice(0, 512),
      // As people write it (203.0.113.7, not a dual-stack socket's ::ffff:203.0.113.7).
      clientAddress: displayAddress(from.address ?? '').slice(0, 64),
      createdAt: now,
      lastSeenAt: now,
      reauthenticatedAt: now,
    },
  })
  return id
}

/**
 * The member of a live session, read with the session in one query on every portal request (the
 * jwt callback): null once the session was ended (signed out, ended from Security, a password
 * change, deactivation), has been idle too long, or its member is deactivated or gone.
 *
 * One statement through the pool, not Prisma's nested read: every portal request makes it (an
 * open article page polls every 3 s), and Prisma's nested select cost 530 µs of the service's CPU
 * per call against 180-230 µs for this join (in-process, bench/open-editors.ts's polls). Prepared
 * (lib/db/prepared-query.ts): planned once per connection, PostgreSQL's share fell from ~310 to
 * ~100 µs per call.
 */
export async function loadSessionMember<Beside = never>(
  sessionId: string,
  userId: string,
  now = new Date(),
  beside?: BesideSession,
): Promise<{ member: ActiveMember; session: PortalSessionState; twoFactor: { policy: TenantTwoFactorPolicy; memberSince: Date }; beside: Beside | null } | null> {
  const { rows } = await preparedQuery<SessionMemberRow & { beside?: Beside | null }>(
    sqlPool,
    beside ? `portal-session-member+${beside.name}` : 'portal-session-member',
    `SELECT s.user_id, s.ended_at, s.last_seen_at, s.reauthenticated_at,
            u.email, u.name, u.role::text AS role, u.tenant_id, u.active, u.created_at,
            t.slug AS tenant_slug, t.name AS tenant_name, t.plan::text AS tenant_plan, t.public_site_url AS tenant_public_site_url,
            t.two_factor_policy, t.two_factor_grace_days, t.two_factor_policy_changed_at, t.sso_second_factor, t.admins_need_portal_factor
            ${beside ? `, (SELECT to_json(beside) FROM (${beside.query(sessionNewsroom)}) beside LIMIT 1) AS beside` : ''}
     FROM portal_sessions s JOIN users u ON u.id = s.user_id JOIN tenants t ON t.id = u.tenant_id
     WHERE s.id = $1`,
    [sessionId, ...(beside?.values ?? [])],
  )
  const row = rows[0]
  if (!row || row.ended_at || row.user_id !== userId || !row.active) return null
  if (now.getTime() - row.last_seen_at.getTime() > sessionIdleLimitMs) return null
  if (now.getTime() - row.last_seen_at.getTime() >= lastSeenIntervalMs) {
    // Not awaited: a lost update only makes "last seen" a minute staler. The condition keeps
    // concurrent requests from writing the same minute twice. One prepared statement, not
    // Prisma's updateMany (~270 µs of the service's CPU per call against ~50).
    preparedQuery(sqlPool, 'portal-session-seen', 'UPDATE portal_sessions SET last_seen_at = $1 WHERE id = $2 AND last_seen_at = $3', [now, sessionId, row.last_seen_at])
      .catch((error: Error) => console.warn(`[sessions] could not record last seen of ${sessionId}: ${error.message}`))
  }
  const tenant = { id: row.tenant_id, slug: row.tenant_slug, name: row.tenant_name, plan: row.tenant_plan, publicSiteUrl: row.tenant_public_site_url }
  return {
    member: { id: row.user_id, email: row.email, name: row.name, role: row.role, tenantId: row.tenant_id, tenantName: row.tenant_name, tenant },
    session: { id: sessionId, reauthenticatedAt: row.reauthenticated_at },
    // Read in the same statement, so the two-factor policy costs the request nothing unless it covers the member.
    twoFactor: { policy: { twoFactorPolicy: row.two_factor_policy, twoFactorGraceDays: row.two_factor_grace_days, twoFactorPolicyChangedAt: row.two_factor_policy_changed_at, ssoSecondFactor: row.sso_second_factor, adminsNeedPortalFactor: row.admins_need_portal_factor }, memberSince: row.created_at },
    beside: row.beside ?? null,
  }
}

/** The session member's newsroom, as SQL a BesideSession's query may use: taken from the session's own row, never from the request. */
const sessionNewsroom = 'u.tenant_id'

/**
 * What a route reads in the same statement as the session (one round trip instead of two; the
 * article page's poll reads the article's watch state so): `query(newsroomId)` is a SELECT of at
 * most one row, scoped to the newsroom `newsroomId` names, with its values as `$2`, `$3`, …;
 * its row comes back as `beside` (JSON: times as text), null when it has none. `name` names the
 * prepared statement, so one name must always give the same query.
 */
export type BesideSession = { name: string; query: (newsroomId: string) => string; values: unknown[] }

type SessionMemberRow = {
  user_id: string
  ended_at: Date | null
  last_seen_at: Date
  reauthenticated_at: Date
  email: string
  name: string
  role: Role
  tenant_id: string
  active: boolean
  tenant_slug: string
  tenant_name: string
  tenant_plan: Plan
  tenant_public_site_url: string
  created_at: Date
  two_factor_policy: string
  two_factor_grace_days: number
  two_factor_policy_changed_at: Date
  sso_second_factor: string
  admins_need_portal_factor: boolean
}

export type PortalSessionSummary = {
  id: string
  userAgent: string
  clientAddress: string
  createdAt: Date
  lastSeenAt: Date
  current: boolean
}

/** The member's own live sessions, the one making this request first. */
export async function listPortalSessions(actor: Actor & { user: NonNullable<Actor['user']> }, currentSessionId: string | null, now = new Date()): Promise<PortalSessionSummary[]> {
  const rows = await tenantDb(actor.tenant.id).portalSession.findMany({
    where: { userId: actor.user.id, endedAt: null, lastSeenAt: { gt: new Date(now.getTime() - sessionIdleLimitMs) } },
    orderBy: [{ lastSeenAt: 'desc' }, { id: 'desc' }],
  })
  return rows
    .map((row) => ({ id: row.id, userAgent: row.userAgent, clientAddress: row.clientAddress, createdAt: row.createdAt, lastSeenAt: row.lastSeenAt, current: row.id === currentSessionId }))
    .sort((a, b) => Number(b.current) - Number(a.current))
}

type SessionWriter = {
  portalSession: { updateMany(args: Prisma.PortalSessionUpdateManyArgs): PromiseLike<{ count: number }> }
  $executeRaw(query: TemplateStringsArray, ...values: unknown[]): PromiseLike<number>
}

declare const heldInThisTransaction: unique symbol
/** What lockMemberToEndSessions hands back: the member's factor lock is held, taken first, in the caller's transaction. */
export type MemberSessionsLock = { readonly userId: string; readonly [heldInThisTransaction]: true }

/**
 * The first thing a change that ends a member's sessions does in its transaction (a password
 * change, a deactivation, an admin's reset, "sign out everywhere else"): the member's factor lock,
 * held until it commits. A sign-in reads credentialsChangedAt under the same lock before it inserts
 * its session (startPortalSession), so it starts either before the change (which then ends it) or
 * after (and is refused): never inserted just after the change ended the sessions. First, before
 * any row is written or locked (checked: the transaction has no id yet): every holder of the lock
 * takes it before any row, and one that locked the member's or the newsroom's row first and then
 * waited here would deadlock with a reset holding the lock and waiting for that row (sec55, sec58).
 * With `asking` (the member's own session), the session is read under the lock too and must still
 * be live (lockFactorsForLiveSession): `what` finishes "…, so ___".
 */
export async function lockMemberToEndSessions(tx: RecoveryCodeWriter, userId: string, asking?: { session: Pick<PortalSessionState, 'id'>; what: string }): Promise<MemberSessionsLock> {
  const [state] = await tx.$queryRaw<{ xid: string | null }[]>`SELECT pg_current_xact_id_if_assigned()::text AS xid`
  if (state?.xid) throw new Error('lockMemberToEndSessions must come first in its transaction, before any row is written or locked: the member\'s factor lock is always taken before any row')
  await lockFactorsForLiveSession(tx, userId, asking?.session ?? null, asking?.what ?? '')
  return { userId } as MemberSessionsLock
}

/**
 * Ends a member's live sessions (all, or all but one) inside the caller's transaction, under the
 * member's factor lock (`lock`, from lockMemberToEndSessions): the change that demands it (a
 * password change, a deactivation, a factor reset, "sign out everywhere else") and the ending
 * commit together. Each ends at its next request, when the jwt callback reads the row. Moves
 * credentialsChangedAt forward (now, or past its last value if that is later): a sign-in whose
 * proof began before starts no session (startPortalSession),
 * and known-browser notes (lib/auth/known-browser.ts) made before stop counting.
 */
export async function endMemberSessions(tx: SessionWriter, lock: MemberSessionsLock, reason: SessionEndReason, exceptSessionId?: string | null): Promise<number> {
  const now = new Date()
  const { count } = await tx.portalSession.updateMany({
    where: { userId: lock.userId, endedAt: null, ...(exceptSessionId ? { id: { not: exceptSessionId } } : {}) },
    data: { endedAt: now, endedReason: reason },
  })
  // Never backwards: each instance stamps with its own clock, and after one whose clock ran ahead,
  // a later change stamped "now" below what a sign-in had read with its proof, which then passed
  // startPortalSession's check with the old password (break58). Every writer holds the factor lock.
  await tx.$executeRaw`UPDATE users SET credentials_changed_at = GREATEST(${now}::timestamptz, credentials_changed_at + interval '1 millisecond') WHERE id = ${lock.userId}`
  return count
}

type SessionReader = { $queryRaw<T = unknown>(query: TemplateStringsArray, ...values: unknown[]): PromiseLike<T> }

/**
 * Whether the member's session is still live, read inside the caller's transaction (after the
 * member's factor lock) and held FOR SHARE until it commits: a check made before the transaction
 * misses a reset (which ends every session of the member) or a "sign out everywhere" that
 * commits in between, and one that ends the session after this read waits for the commit.
 */
export async function sessionStillLive(tx: SessionReader, sessionId: string, userId: string): Promise<boolean> {
  const rows = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM portal_sessions WHERE id = ${sessionId} AND user_id = ${userId} AND ended_at IS NULL FOR SHARE`
  return rows.length === 1
}

/**
 * The member's factor lock, then the session asking read again under it. Every change of a
 * member's second factors or codes by the member goes through here: a check made before the
 * transaction (sudo mode) misses a reset or a "sign out everywhere" that commits in between, and a
 * session ended so (a stolen one, say) must neither add nor take away a factor, nor replace the
 * owner's codes (sec55, break55), nor rename a passkey or start an app's set-up (sec57). `what`
 * finishes "…, so ___": what was not done. Without a session (a caller with no portal session to
 * check) only the lock is taken.
 */
export async function lockFactorsForLiveSession(tx: RecoveryCodeWriter, userId: string, session: Pick<PortalSessionState, 'id'> | null, what: string): Promise<void> {
  await lockMembersFactors(tx, userId)
  if (session && !(await sessionStillLive(tx, session.id, userId))) {
    throw new ConflictError('precondition_failed', `You were signed out (you signed out everywhere, changed your password, or an admin reset your sign-in methods), so ${what}. Sign in again to do it.`)
  }
}

/**
 * "Sign out" on one of the member's own sessions (another member's id looks missing). `asking`:
 * the session making the request, read again under the member's factor lock, as "sign out
 * everywhere else" does: a stolen cookie whose session the owner had just ended, pressing "Sign
 * out" on the owner's session in the same instant, passed the door and threw the owner out
 * (break58); one that is ended meanwhile ends nothing (409, sign in again). Under the lock, two
 * sessions ending each other at once are taken in turn (the second finds itself ended) rather than
 * each reading its own row and waiting for the other's.
 */
export async function endPortalSession(actor: Actor & { user: NonNullable<Actor['user']> }, sessionId: string, asking: Pick<PortalSessionState, 'id'> | null): Promise<void> {
  const tdb = tenantDb(actor.tenant.id)
  await tdb.$transaction(async (tx) => {
    // The lock first in every case, as every other change of the member's sessions takes it.
    await lockFactorsForLiveSession(tx, actor.user.id, asking, 'no session was signed out')
    const { count } = await tx.portalSession.updateMany({ where: { id: sessionId, userId: actor.user.id, endedAt: null }, data: { endedAt: new Date(), endedReason: 'ended_by_member' } })
    if (count === 0) throw new NotFoundError('session', sessionId)
    await recordAudit(tx, { tenantId: actor.tenant.id, actorId: actor.user.id, action: 'user.sessions_ended', targetType: 'user', targetId: actor.user.id, metadata: { count, reason: 'ended_by_member', session: sessionId } })
  })
}

/**
 * "Sign out all other sessions": every live session of the member but the one asking. Under the
 * member's factor lock, as an admin's reset is, held until the end commits: a sign-in reads
 * credentialsChangedAt under it (startPortalSession), and one checked just before this, whose
 * session was inserted just after the sessions were ended here, kept its session (sec57). A
 * factor change needs no more than the session's row (lockFactorsForLiveSession reads it FOR SHARE).
 * From a session ended meanwhile (by another "sign out everywhere else", a reset, a password
 * change) nothing is ended: 409, sign in again (break58).
 */
export async function endOtherPortalSessions(actor: Actor & { user: NonNullable<Actor['user']> }, currentSessionId: string): Promise<number> {
  return tenantDb(actor.tenant.id).$transaction(async (tx) => {
    // Known-browser notes made before now stop counting too (endMemberSessions): a lost laptop
    // keeps its note past sign-out, and this is what its owner presses.
    // The asking session read again under the lock, as a password change does: the owner and a
    // stolen cookie pressing this in the same instant both passed the door, and the one whose
    // session the other had just ended went on to end the other's (break58).
    const lock = await lockMemberToEndSessions(tx, actor.user.id, { session: { id: currentSessionId }, what: 'no other session was signed out' })
    const count = await endMemberSessions(tx, lock, 'ended_by_member', currentSessionId)
    if (count > 0) await recordAudit(tx, { tenantId: actor.tenant.id, actorId: actor.user.id, action: 'user.sessions_ended', targetType: 'user', targetId: actor.user.id, metadata: { count, reason: 'ended_by_member', kept: currentSessionId } })
    return count
  })
}

/** The sign-out button: the session ends here, not only in the browser that held its cookie. */
export async function signOutPortalSession(sessionId: string): Promise<void> {
  await systemDb().portalSession.updateMany({ where: { id: sessionId, endedAt: null }, data: { endedAt: new Date(), endedReason: 'signed_out' } })
}
