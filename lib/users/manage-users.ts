import { randomInt } from 'node:crypto'
import { recordAudit } from '../audit.ts'
import { assertAdmin } from '../auth/assert-admin.ts'
import { hashPassword } from '../auth/passwords.ts'
import type { Role } from '../db/generated/enums.ts'
import { ConflictError, NotFoundError, ValidationError } from '../errors.ts'
import { dispatchEvents } from '../events/dispatch-events.ts'
import { recordEvents, type RecordedEvent } from '../events/record-event.ts'
import { createId } from '../ids.ts'
import { parseInput } from '../parse-input.ts'
import type { Actor } from '../tenancy/actor.ts'
import { systemDb, tenantDb, type TenantDb } from '../tenancy/tenant-db.ts'
import { forgetCachedTokens } from '../tokens/authenticate-token.ts'
import { changeRoleSchema, createUserSchema, userIdSchema, type ChangeRoleInput, type CreateUserInput } from './user-schemas.ts'

type Transaction = Parameters<Parameters<TenantDb['$transaction']>[0]>[0]

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
export async function listUsers(tenantId: string): Promise<UserSummary[]> {
  return tenantDb(tenantId).user.findMany({ select: summary, orderBy: [{ active: 'desc' }, { name: 'asc' }, { id: 'asc' }] })
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
export async function createUser(actor: Actor, raw: CreateUserInput): Promise<{ user: UserSummary; generatedPassword: string | null }> {
  assertAdmin(actor)
  const input = parseInput(createUserSchema, raw)
  const tdb = tenantDb(actor.tenant.id)
  if (await systemDb().user.findUnique({ where: { email: input.email }, select: { id: true } })) throw emailTaken()

  const generatedPassword = input.password ? null : generatePassword()
  const passwordHash = await hashPassword(input.password || generatedPassword!)
  let outcome: { user: UserSummary; events: RecordedEvent[] }
  try {
    outcome = await tdb.$transaction(async (tx) => {
      const user = await tx.user.create({
        data: { id: createId('usr'), tenantId: actor.tenant.id, email: input.email, name: input.name, role: input.role, passwordHash },
        select: summary,
      })
      const events = await recordUserChange(tx, actor, 'user.created', user.id, {
        event: { email: user.email, name: user.name, role: user.role, created_by: actor.user.id },
        audit: { email: user.email, name: user.name, role: user.role },
      })
      return { user, events }
    })
  } catch (error) {
    if (isUniqueViolation(error)) throw emailTaken()
    throw error
  }
  await dispatchEvents(outcome.events)
  return { user: outcome.user, generatedPassword }
}

/**
 * A change to a person, recorded twice in the change's transaction: as the event subscribers
 * receive and as the audit log's entry, under the same action and target.
 */
async function recordUserChange(
  tx: Transaction,
  actor: Actor & { user: { id: string } },
  kind: 'user.created' | 'user.role_changed' | 'user.deactivated',
  userId: string,
  details: { event: Record<string, string | null>; audit: Record<string, string | null> },
): Promise<RecordedEvent[]> {
  await recordAudit(tx, { tenantId: actor.tenant.id, actorId: actor.user.id, action: kind, targetType: 'user', targetId: userId, metadata: details.audit })
  return recordEvents(tx, actor.tenant.id, [{ kind, data: { user_id: userId, ...details.event } }])
}

/** After a committed change to someone's role or access: their tokens' cached scopes go, the events go out. */
async function announceAccessChange(events: RecordedEvent[]): Promise<void> {
  if (events.length === 0) return
  // A token's scopes are bounded by its owner's role; cached lookups must not outlive the change.
  forgetCachedTokens()
  await dispatchEvents(events)
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
export async function changeRole(actor: Actor, raw: ChangeRoleInput): Promise<UserSummary> {
  assertAdmin(actor)
  const input = parseInput(changeRoleSchema, raw)
  const tdb = tenantDb(actor.tenant.id)
  const outcome = await tdb.$transaction(async (tx) => {
    await lockAdminChanges(tx, actor.tenant.id)
    const user = await findUser(tx, input.userId)
    if (!user.active) throw new ConflictError('user_deactivated', `${user.name} is deactivated; a deactivated account keeps its last role.`)
    if (user.role === input.role) return { user, events: [] }
    if (input.role !== 'admin') await assertNotLastAdmin(tx, user, `made ${input.role === 'editor' ? 'an editor' : 'a writer'}`)

    const updated = await tx.user.update({ where: { id: user.id }, data: { role: input.role }, select: summary })
    const events = await recordUserChange(tx, actor, 'user.role_changed', user.id, {
      event: { email: user.email, previous_role: user.role, role: updated.role, changed_by: actor.user.id },
      audit: { email: user.email, name: user.name, previous_role: user.role, role: updated.role },
    })
    return { user: updated, events }
  })
  await announceAccessChange(outcome.events)
  return outcome.user
}

/**
 * Ends a person's access: their portal session ends on its next request (the session
 * callback re-reads the user) and their API tokens stop working at once. Their articles,
 * tokens and subscriptions stay for the record.
 */
export async function deactivateUser(actor: Actor, raw: { userId: string }): Promise<UserSummary> {
  assertAdmin(actor)
  const input = parseInput(userIdSchema, raw)
  if (input.userId === actor.user.id) {
    throw new ConflictError('cannot_deactivate_self', 'You cannot deactivate your own account; ask another admin to do it.')
  }
  const tdb = tenantDb(actor.tenant.id)
  const outcome = await tdb.$transaction(async (tx) => {
    await lockAdminChanges(tx, actor.tenant.id)
    const user = await findUser(tx, input.userId)
    if (!user.active) return { user, events: [] }
    await assertNotLastAdmin(tx, user, 'deactivated')

    const updated = await tx.user.update({ where: { id: user.id }, data: { active: false, deactivatedAt: new Date() }, select: summary })
    const events = await recordUserChange(tx, actor, 'user.deactivated', user.id, {
      event: { email: user.email, deactivated_at: updated.deactivatedAt!.toISOString(), deactivated_by: actor.user.id },
      audit: { email: user.email, name: user.name, role: user.role },
    })
    return { user: updated, events }
  })
  await announceAccessChange(outcome.events)
  return outcome.user
}
