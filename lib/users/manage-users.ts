import { randomInt } from 'node:crypto'
import { recordAudit } from '../audit.ts'
import { assertCan, assertMemberCan } from '../auth/permissions.ts'
import { hashPassword } from '../auth/passwords.ts'
import { endMemberSessions, lockMemberToEndSessions, type MemberSessionsLock } from '../auth/portal-sessions.ts'
import type { Role } from '../db/generated/enums.ts'
import { ConflictError, NotFoundError, ValidationError } from '../errors.ts'
import { commitChange, type ChangeTransaction, type Emit } from '../events/commit-change.ts'
import { createId } from '../ids.ts'
import type { Actor } from '../tenancy/actor.ts'
import { systemDb, tenantDb } from '../tenancy/tenant-db.ts'
import { forgetCachedTokens } from '../tokens/authenticate-token.ts'
import type { NewUser, RoleChange } from './user-schemas.ts'

type Transaction = ChangeTransaction

export type UserSummary = {
  id: string
  email: string
  name: string
  role: Role
  active: boolean
  deactivatedAt: Date | null
  createdAt: Date
}

const summary = { id: true, email: true, name: true, role: true, active: true, deactivatedAt: true, createdAt: true } as const

/** Active people first, then by name. */
export async function listUsers(actor: Actor): Promise<UserSummary[]> {
  assertCan(actor, 'admin')
  return tenantDb(actor.tenant.id).user.findMany({ select: summary, orderBy: [{ active: 'desc' }, { name: 'asc' }, { id: 'asc' }] })
}

// No look-alike characters (0/O, 1/l/I), since people may copy it by hand: 20 of 56 symbols ≈ 116 bits.
const passwordAlphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789'

export function generatePassword(length = 20): string {
  let password = ''
  for (let i = 0; i < length; i++) password += passwordAlphabet[randomInt(passwordAlphabet.length)]
  return password
}

function emailTaken(): ValidationError {
  // E-mail addresses sign people in across all newsrooms, so they are unique service-wide.
  return new ValidationError([{ field: 'email', message: 'This e-mail address is already in use. Each person signs in with their own address.' }])
}

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string }).code === 'P2002'
}

/**
 * Adds a person to the newsroom. Without a password the service generates one, which is
 * returned here once and never stored in the clear.
 */
export async function createUser(actor: Actor, input: NewUser): Promise<{ user: UserSummary; generatedPassword: string | null }> {
  assertMemberCan(actor, 'admin')
  const tdb = tenantDb(actor.tenant.id)
  if (await systemDb().user.findUnique({ where: { email: input.email }, select: { id: true } })) throw emailTaken()

  const generatedPassword = input.password ? null : generatePassword()
  const passwordHash = await hashPassword(input.password || generatedPassword!)
  let user: UserSummary
  try {
    user = await commitChange(tdb, actor.tenant.id, async (tx, emit) => {
      const user = await tx.user.create({
        data: { id: createId('usr'), tenantId: actor.tenant.id, email: input.email, name: input.name, role: input.role, passwordHash },
        select: summary,
      })
      await recordUserChange(tx, emit, actor, 'user.created', user.id, {
        event: { email: user.email, name: user.name, role: user.role, created_by: actor.user.id },
        audit: { email: user.email, name: user.name, role: user.role },
      })
      return user
    })
  } catch (error) {
    if (isUniqueViolation(error)) throw emailTaken()
    throw error
  }
  return { user, generatedPassword }
}

/**
 * Single sign-on's just-in-time creation (lib/auth/sso-sign-in.ts): a writer for an address the
 * newsroom's identity provider verified, in the domain its admin allowed. No one acts, so the
 * audit entry's actor is null and says how the account came to be. The password is random and
 * never shown: the member signs in through the identity provider.
 */
export async function createUserJustInTime(tenantId: string, input: { email: string; name: string; issuer: string }): Promise<UserSummary> {
  const passwordHash = await hashPassword(generatePassword())
  return commitChange(tenantDb(tenantId), tenantId, async (tx, emit) => {
    const user = await tx.user.create({
      data: { id: createId('usr'), tenantId, email: input.email, name: input.name, role: 'writer', passwordHash },
      select: summary,
    })
    await recordAudit(tx, { tenantId, actorId: null, action: 'user.created', targetType: 'user', targetId: user.id, metadata: { email: user.email, name: user.name, role: user.role, via: 'sso_just_in_time', issuer: input.issuer } })
    await emit([{ kind: 'user.created', data: { user_id: user.id, email: user.email, name: user.name, role: user.role, created_by: null } }])
    return user
  })
}

/**
 * A change to a person, recorded twice in the change's transaction: as the event subscribers
 * receive and as the audit log's entry, under the same action and target.
 */
async function recordUserChange(
  tx: Transaction,
  emit: Emit,
  actor: Actor & { user: { id: string } },
  kind: 'user.created' | 'user.role_changed' | 'user.deactivated',
  userId: string,
  details: { event: Record<string, string | null>; audit: Record<string, string | null> },
): Promise<void> {
  await recordAudit(tx, { tenantId: actor.tenant.id, actorId: actor.user.id, action: kind, targetType: 'user', targetId: userId, metadata: details.audit })
  await emit([{ kind, data: { user_id: userId, ...details.event } }])
}

/**
 * A change to someone's role or access: serialised with the newsroom's other such changes, on
 * the person as they are now, and once committed, cached token lookups (whose scopes follow the
 * owner's role) must not outlive it.
 */
function changeAccess(
  actor: Actor,
  userId: string,
  change: (tx: Transaction, emit: Emit, user: UserSummary, sessions: MemberSessionsLock | null) => Promise<UserSummary>,
  options: { endsSessions?: boolean } = {},
): Promise<UserSummary> {
  return commitChange(
    tenantDb(actor.tenant.id),
    actor.tenant.id,
    async (tx, emit) => {
      // A change that ends the person's sessions takes their factor lock first, before the
      // newsroom's row, as every holder of that lock does (lockMemberToEndSessions).
      const sessions = options.endsSessions ? await lockMemberToEndSessions(tx, userId) : null
      await lockAdminChanges(tx, actor.tenant.id)
      return change(tx, emit, await findUser(tx, userId), sessions)
    },
    { afterCommit: () => forgetCachedTokens() },
  )
}

/**
 * Serialises changes to who is an admin within one newsroom: without it, two admins
 * demoting each other at the same moment could both pass the last-admin check.
 */
async function lockAdminChanges(tx: Transaction, tenantId: string): Promise<void> {
  await tx.$queryRaw`SELECT id FROM tenants WHERE id = ${tenantId} FOR UPDATE`
}

async function findUser(tx: Transaction, userId: string) {
  const user = await tx.user.findUnique({ where: { id: userId }, select: summary })
  if (!user) throw new NotFoundError('user', userId)
  return user
}

async function assertNotLastAdmin(tx: Transaction, user: UserSummary, doing: string): Promise<void> {
  if (user.role !== 'admin' || !user.active) return
  const otherAdmins = await tx.user.count({ where: { role: 'admin', active: true, id: { not: user.id } } })
  if (otherAdmins === 0) {
    throw new ConflictError(
      'last_admin',
      `${user.name} is the newsroom's last active admin and cannot be ${doing}. Make another person an admin first.`,
    )
  }
}

/** Gives a person another role. Their session and their tokens follow the new role at once. */
export async function changeRole(actor: Actor, input: RoleChange): Promise<UserSummary> {
  assertMemberCan(actor, 'admin')
  return changeAccess(actor, input.userId, async (tx, emit, user) => {
    if (!user.active) throw new ConflictError('user_deactivated', `${user.name} is deactivated; a deactivated account keeps its last role.`)
    if (user.role === input.role) return user
    if (input.role !== 'admin') await assertNotLastAdmin(tx, user, `made ${input.role === 'editor' ? 'an editor' : 'a writer'}`)

    const updated = await tx.user.update({ where: { id: user.id }, data: { role: input.role }, select: summary })
    await recordUserChange(tx, emit, actor, 'user.role_changed', user.id, {
      event: { email: user.email, previous_role: user.role, role: updated.role, changed_by: actor.user.id },
      audit: { email: user.email, name: user.name, previous_role: user.role, role: updated.role },
    })
    return updated
  })
}

/**
 * Ends a person's access: their portal sessions end on their next request (the session rows
 * are ended here, and the jwt callback re-reads the user) and their API tokens stop working at once. Their articles,
 * tokens and subscriptions stay for the record.
 */
export async function deactivateUser(actor: Actor, input: { userId: string }): Promise<UserSummary> {
  assertMemberCan(actor, 'admin')
  if (input.userId === actor.user.id) {
    throw new ConflictError('cannot_deactivate_self', 'You cannot deactivate your own account; ask another admin to do it.')
  }
  return changeAccess(actor, input.userId, async (tx, emit, user, sessions) => {
    if (!user.active) return user
    await assertNotLastAdmin(tx, user, 'deactivated')

    const updated = await tx.user.update({ where: { id: user.id }, data: { active: false, deactivatedAt: new Date() }, select: summary })
    // The sessions end with the account, recorded as why (the jwt callback refuses a deactivated
    // member too), and a sign-in checked before starts none (startPortalSession, sec58).
    await endMemberSessions(tx, sessions!, 'deactivated')
    await recordUserChange(tx, emit, actor, 'user.deactivated', user.id, {
      event: { email: user.email, deactivated_at: updated.deactivatedAt!.toISOString(), deactivated_by: actor.user.id },
      audit: { email: user.email, name: user.name, role: user.role },
    })
    return updated
  }, { endsSessions: true })
}
