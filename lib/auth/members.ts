import type { Role } from '../db/generated/enums.ts'
import { actingTenantSelect, type ActingTenant } from '../tenancy/actor.ts'
import { systemDb } from '../tenancy/tenant-db.ts'
import { hashPassword, verifyPassword } from './passwords.ts'

export type Member = { id: string; email: string; name: string; role: Role; tenantId: string; tenantName: string }

/** A member who may act now, with the newsroom they act in, read together in one query. */
export type ActiveMember = Member & { tenant: ActingTenant }

// Verifying against a real hash when the e-mail is unknown keeps the response time the
// same, so sign-in does not reveal which addresses have accounts.
let decoyHash: Promise<string> | undefined

/**
 * The member whose password this is, or null, with their credentialsChangedAt as read in the same
 * statement as the password hash, for the sign-in's provedSince (proofBegan in portal-sessions.ts).
 */
export async function authenticateUser(email: string, password: string): Promise<(Member & { credentialsChangedAt: Date | null }) | null> {
  const user = await systemDb().user.findUnique({
    where: { email: email.trim().toLowerCase() },
    include: { tenant: { select: { name: true } } },
  })
  if (!user || !user.active) {
    decoyHash ??= hashPassword('decoy password for unknown accounts')
    await verifyPassword(await decoyHash, password)
    return null
  }
  if (!(await verifyPassword(user.passwordHash, password))) return null
  return { id: user.id, email: user.email, name: user.name, role: user.role, tenantId: user.tenantId, tenantName: user.tenant.name, credentialsChangedAt: user.credentialsChangedAt }
}

/**
 * The user as they are now, or null once deactivated or gone. Runs on every session read
 * (the jwt callback), so it is the one database read a portal request makes for its caller.
 */
export async function loadActiveMember(userId: string): Promise<ActiveMember | null> {
  const user = await systemDb().user.findUnique({
    where: { id: userId },
    select: { id: true, email: true, name: true, role: true, tenantId: true, active: true, tenant: { select: actingTenantSelect } },
  })
  if (!user || !user.active) return null
  return { id: user.id, email: user.email, name: user.name, role: user.role, tenantId: user.tenantId, tenantName: user.tenant.name, tenant: user.tenant }
}
