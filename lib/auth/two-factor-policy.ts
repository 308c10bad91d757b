import { z } from 'zod'
import { recordAudit } from '../audit.ts'
import type { Role } from '../db/generated/enums.ts'
import type { Actor } from '../tenancy/actor.ts'
import { tenantDb } from '../tenancy/tenant-db.ts'
import { ValidationError } from '../errors.ts'
import { assertMemberCan } from './permissions.ts'
import type { PortalSessionState } from './portal-sessions.ts'
import { assertRecentlyAuthenticated } from './recent-authentication.ts'
import { hasSecondFactor, secondFactorsOf } from './second-factors.ts'

export const twoFactorPolicies = ['optional', 'admins', 'all'] as const
export type TwoFactorPolicy = (typeof twoFactorPolicies)[number]

/** Sign-ins through the newsroom's identity provider: trust its MFA, or also ask for the portal's factor. */
export const ssoSecondFactorChoices = ['trust_provider', 'portal_factor'] as const
export type SsoSecondFactor = (typeof ssoSecondFactorChoices)[number]

export const saveTwoFactorPolicySchema = z.object({
  policy: z.enum(twoFactorPolicies, { message: 'Choose who must use two-factor sign-in.' }),
  graceDays: z.coerce.number({ message: 'Enter a number of days.' }).int('Enter whole days.').min(0, 'Enter 0 days or more.').max(90, 'At most 90 days.'),
  // Optional, so a form or client that predates them keeps the newsroom's stored choices.
  ssoSecondFactor: z.enum(ssoSecondFactorChoices, { message: 'Choose how sign-ins through your identity provider are treated.' }).optional(),
  adminsNeedPortalFactor: z.boolean().optional(),
})

export type TwoFactorPolicyView = { policy: TwoFactorPolicy; graceDays: number; changedAt: string; ssoSecondFactor: SsoSecondFactor; adminsNeedPortalFactor: boolean }

/** A newsroom's policy as the tenant row keeps it (read with the session on every request). */
export type TenantTwoFactorPolicy = {
  twoFactorPolicy: string
  twoFactorGraceDays: number
  twoFactorPolicyChangedAt: Date
  ssoSecondFactor: string
  adminsNeedPortalFactor: boolean
}

/** Whether the policy asks a member of this role to have a factor: the policy, or the admins' own rule. */
export function policyCovers(tenant: Pick<TenantTwoFactorPolicy, 'twoFactorPolicy' | 'adminsNeedPortalFactor'>, role: Role): boolean {
  return tenant.twoFactorPolicy === 'all' || (role === 'admin' && (tenant.twoFactorPolicy === 'admins' || tenant.adminsNeedPortalFactor))
}

/**
 * When a member the policy covers must have a factor by: the grace counts from the later of
 * the policy's last change and the member's creation, so a newcomer gets the whole grace too.
 */
export function setupDeadline(tenant: TenantTwoFactorPolicy, member: { role: Role; createdAt: Date }): Date | null {
  if (!policyCovers(tenant, member.role)) return null
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
 * Whether a sign-in through the identity provider stands in for the portal's factor for this
 * member: yes when the newsroom trusts the provider's MFA, except for admins when the newsroom
 * requires admins to use the portal's factor regardless.
 */
export function ssoStandsInForPortalFactor(tenant: Pick<TenantTwoFactorPolicy, 'ssoSecondFactor' | 'adminsNeedPortalFactor'>, role: Role): boolean {
  if (role === 'admin' && tenant.adminsNeedPortalFactor) return false
  return tenant.ssoSecondFactor !== 'portal_factor'
}

/**
 * When the member of a live session (loadSessionMember's answer) must have a second factor by,
 * or null. A sign-in through the newsroom's identity provider is trusted for its MFA when the
 * newsroom chose so (ssoStandsInForPortalFactor); otherwise the policy covers it as it covers a
 * password sign-in. Every door asks this one question: the session's cookie (auth-options.ts),
 * the portal's pages (second-factor-gate.ts) and the article page's plain routes
 * (portal-request-actor.ts).
 */
export async function sessionSecondFactorDueBy(
  live: { member: { id: string; role: Role }; twoFactor: { policy: TenantTwoFactorPolicy; memberSince: Date } },
  signInMethod: unknown,
): Promise<Date | null> {
  if (signInMethod === 'sso' && ssoStandsInForPortalFactor(live.twoFactor.policy, live.member.role)) return null
  return secondFactorDueBy(live.twoFactor.policy, { id: live.member.id, role: live.member.role, createdAt: live.twoFactor.memberSince })
}

/** Whether the session's member is past the grace: then only Security works for them. */
export async function sessionSecondFactorOverdue(live: Parameters<typeof sessionSecondFactorDueBy>[0], signInMethod: unknown, now = new Date()): Promise<boolean> {
  const dueBy = await sessionSecondFactorDueBy(live, signInMethod)
  return dueBy !== null && dueBy.getTime() <= now.getTime()
}

const policyColumns = { twoFactorPolicy: true, twoFactorGraceDays: true, twoFactorPolicyChangedAt: true, ssoSecondFactor: true, adminsNeedPortalFactor: true } as const

export async function getTwoFactorPolicy(actor: Actor): Promise<TwoFactorPolicyView> {
  assertMemberCan(actor, 'admin')
  const row = await tenantDb(actor.tenant.id).tenant.findUniqueOrThrow({ where: { id: actor.tenant.id }, select: policyColumns })
  return toView(row)
}

/**
 * Sets who must have a second factor, and how sign-ins through the identity provider count
 * (admins, sudo mode, audited). Changing who is covered restarts the grace; changing only its
 * length does not. A policy that would leave the admin saving it past their own deadline without
 * a factor (so that only Security works for them from the next request) is refused with the
 * reason and what to do instead: set up a factor first, or give a grace.
 */
export async function saveTwoFactorPolicy(actor: Actor, session: PortalSessionState | null, input: z.output<typeof saveTwoFactorPolicySchema>, now = new Date()): Promise<TwoFactorPolicyView> {
  assertMemberCan(actor, 'admin')
  assertRecentlyAuthenticated(session)
  const tenantId = actor.tenant.id
  return tenantDb(tenantId).$transaction(async (tx) => {
    const before = await tx.tenant.findUniqueOrThrow({ where: { id: tenantId }, select: policyColumns })
    const next = {
      twoFactorPolicy: input.policy,
      twoFactorGraceDays: input.graceDays,
      ssoSecondFactor: input.ssoSecondFactor ?? before.ssoSecondFactor,
      adminsNeedPortalFactor: input.adminsNeedPortalFactor ?? before.adminsNeedPortalFactor,
    }
    // Who is covered, or whether SSO counts, changed: the grace starts again for everyone it now asks.
    const coverageChanged = before.twoFactorPolicy !== next.twoFactorPolicy || before.ssoSecondFactor !== next.ssoSecondFactor || before.adminsNeedPortalFactor !== next.adminsNeedPortalFactor
    const changedAt = coverageChanged ? now : before.twoFactorPolicyChangedAt
    await refuseSelfLockout(actor, { ...next, twoFactorPolicyChangedAt: changedAt }, now)
    const row = await tx.tenant.update({ where: { id: tenantId }, data: { ...next, ...(coverageChanged ? { twoFactorPolicyChangedAt: changedAt } : {}) }, select: policyColumns })
    await recordAudit(tx, {
      tenantId, actorId: actor.user.id, action: 'two_factor.policy_changed', targetType: 'tenant', targetId: tenantId,
      metadata: {
        from: { policy: before.twoFactorPolicy, graceDays: before.twoFactorGraceDays, ssoSecondFactor: before.ssoSecondFactor, adminsNeedPortalFactor: before.adminsNeedPortalFactor },
        to: { policy: row.twoFactorPolicy, graceDays: row.twoFactorGraceDays, ssoSecondFactor: row.ssoSecondFactor, adminsNeedPortalFactor: row.adminsNeedPortalFactor },
      },
    })
    return toView(row)
  })
}

/**
 * The policy would cover the admin saving it, who has no factor, with a deadline already
 * reached: from the next request only Security would work for them. Refused, saying why and how.
 */
async function refuseSelfLockout(actor: Actor, next: TenantTwoFactorPolicy, now: Date): Promise<void> {
  const admin = await tenantDb(actor.tenant.id).user.findUniqueOrThrow({ where: { id: actor.user!.id }, select: { role: true, createdAt: true } })
  const deadline = setupDeadline(next, admin)
  if (!deadline || deadline.getTime() > now.getTime()) return
  if (hasSecondFactor(await secondFactorsOf(actor.user!.id))) return
  const message =
    'This policy would lock you out: it requires a second factor of you at once, and you have none. ' +
    'Set up an authenticator app or a passkey in Security first, or give a grace period of at least 1 day.'
  throw new ValidationError([{ field: 'graceDays', message }], message)
}

function toView(row: TenantTwoFactorPolicy): TwoFactorPolicyView {
  return {
    policy: row.twoFactorPolicy as TwoFactorPolicy, graceDays: row.twoFactorGraceDays, changedAt: row.twoFactorPolicyChangedAt.toISOString(),
    ssoSecondFactor: row.ssoSecondFactor as SsoSecondFactor, adminsNeedPortalFactor: row.adminsNeedPortalFactor,
  }
}
