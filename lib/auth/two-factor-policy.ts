import { z } from 'zod'
import { recordAudit } from '../audit.ts'
import type { Role } from '../db/generated/enums.ts'
import type { Actor } from '../tenancy/actor.ts'
import { tenantDb } from '../tenancy/tenant-db.ts'
import { assertMemberCan } from './permissions.ts'
import type { PortalSessionState } from './portal-sessions.ts'
import { assertRecentlyAuthenticated } from './recent-authentication.ts'
import { hasSecondFactor, secondFactorsOf } from './second-factors.ts'

export const twoFactorPolicies = ['optional', 'admins', 'all'] as const
export type TwoFactorPolicy = (typeof twoFactorPolicies)[number]

export const saveTwoFactorPolicySchema = z.object({
  policy: z.enum(twoFactorPolicies, { message: 'Choose who must use two-factor sign-in.' }),
  graceDays: z.coerce.number({ message: 'Enter a number of days.' }).int('Enter whole days.').min(0, 'Enter 0 days or more.').max(90, 'At most 90 days.'),
})

export type TwoFactorPolicyView = { policy: TwoFactorPolicy; graceDays: number; changedAt: string }

/** A newsroom's policy as the tenant row keeps it (read with the session on every request). */
export type TenantTwoFactorPolicy = { twoFactorPolicy: string; twoFactorGraceDays: number; twoFactorPolicyChangedAt: Date }

export function policyCovers(policy: string, role: Role): boolean {
  return policy === 'all' || (policy === 'admins' && role === 'admin')
}

/**
 * When a member the policy covers must have a factor by: the grace counts from the later of
 * the policy's last change and the member's creation, so a newcomer gets the whole grace too.
 */
export function setupDeadline(tenant: TenantTwoFactorPolicy, member: { role: Role; createdAt: Date }): Date | null {
  if (!policyCovers(tenant.twoFactorPolicy, member.role)) return null
  const from = Math.max(tenant.twoFactorPolicyChangedAt.getTime(), member.createdAt.getTime())
  return new Date(from + tenant.twoFactorGraceDays * 24 * 60 * 60 * 1000)
}

/**
 * The date a member must set a factor up by, or null when the policy does not ask it of them
 * or they have one. Only members the policy covers cost a read of their factors.
 */
export async function secondFactorDueBy(tenant: TenantTwoFactorPolicy, member: { id: string; role: Role; createdAt: Date }): Promise<Date | null> {
  const deadline = setupDeadline(tenant, member)
  if (!deadline) return null
  return hasSecondFactor(await secondFactorsOf(member.id)) ? null : deadline
}

/**
 * When the member of a live session (loadSessionMember's answer) must have a second factor by,
 * or null. A sign-in through the newsroom's identity provider is trusted for its MFA (docs/admins.md,
 * "Signing in"), so it is never asked. Every door asks this one question: the session's
 * cookie (auth-options.ts), the portal's pages (second-factor-gate.ts) and the article page's
 * plain routes (portal-request-actor.ts).
 */
export async function sessionSecondFactorDueBy(
  live: { member: { id: string; role: Role }; twoFactor: { policy: TenantTwoFactorPolicy; memberSince: Date } },
  signInMethod: unknown,
): Promise<Date | null> {
  if (signInMethod === 'sso') return null
  return secondFactorDueBy(live.twoFactor.policy, { id: live.member.id, role: live.member.role, createdAt: live.twoFactor.memberSince })
}

/** Whether the session's member is past the grace: then only Security works for them. */
export async function sessionSecondFactorOverdue(live: Parameters<typeof sessionSecondFactorDueBy>[0], signInMethod: unknown, now = new Date()): Promise<boolean> {
  const dueBy = await sessionSecondFactorDueBy(live, signInMethod)
  return dueBy !== null && dueBy.getTime() <= now.getTime()
}

export async function getTwoFactorPolicy(actor: Actor): Promise<TwoFactorPolicyView> {
  assertMemberCan(actor, 'admin')
  const row = await tenantDb(actor.tenant.id).tenant.findUniqueOrThrow({ where: { id: actor.tenant.id }, select: { twoFactorPolicy: true, twoFactorGraceDays: true, twoFactorPolicyChangedAt: true } })
  return toView(row)
}

/**
 * Sets who must have a second factor (admins, sudo mode, audited). Changing who is covered
 * restarts the grace; changing only its length does not.
 */
export async function saveTwoFactorPolicy(actor: Actor, session: PortalSessionState | null, input: z.output<typeof saveTwoFactorPolicySchema>): Promise<TwoFactorPolicyView> {
  assertMemberCan(actor, 'admin')
  assertRecentlyAuthenticated(session)
  const tenantId = actor.tenant.id
  return tenantDb(tenantId).$transaction(async (tx) => {
    const before = await tx.tenant.findUniqueOrThrow({ where: { id: tenantId }, select: { twoFactorPolicy: true, twoFactorGraceDays: true, twoFactorPolicyChangedAt: true } })
    const policyChanged = before.twoFactorPolicy !== input.policy
    const row = await tx.tenant.update({
      where: { id: tenantId },
      data: { twoFactorPolicy: input.policy, twoFactorGraceDays: input.graceDays, ...(policyChanged ? { twoFactorPolicyChangedAt: new Date() } : {}) },
      select: { twoFactorPolicy: true, twoFactorGraceDays: true, twoFactorPolicyChangedAt: true },
    })
    await recordAudit(tx, {
      tenantId, actorId: actor.user.id, action: 'two_factor.policy_changed', targetType: 'tenant', targetId: tenantId,
      metadata: { from: { policy: before.twoFactorPolicy, graceDays: before.twoFactorGraceDays }, to: { policy: row.twoFactorPolicy, graceDays: row.twoFactorGraceDays } },
    })
    return toView(row)
  })
}

function toView(row: TenantTwoFactorPolicy): TwoFactorPolicyView {
  return { policy: row.twoFactorPolicy as TwoFactorPolicy, graceDays: row.twoFactorGraceDays, changedAt: row.twoFactorPolicyChangedAt.toISOString() }
}
