import type { Role } from '../db/generated/enums.ts'
import { systemDb } from '../tenancy/tenant-db.ts'
import { hashPassword, verifyPassword } from './passwords.ts'

export type Member = { id: string; email: string; name: string; role: Role; tenantId: string; tenantName: string }

// Verifying against a real hash when the e-mail is unknown keeps the response time the
// same, so sign-in does not reveal which addresses have accounts.
let decoyHash: Promise<string> | undefined

export async function authenticateUser(email: string, password: string): Promise<Member | null> {
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
  return { id: user.id, email: user.email, name: user.name, role: user.role, tenantId: user.tenantId, tenantName: user.tenant.name }
}

export async function loadActiveMember(userId: string): Promise<Member | null> {
  const user = await systemDb().user.findUnique({ where: { id: userId }, include: { tenant: { select: { name: true } } } })
  if (!user || !user.active) return null
  return { id: user.id, email: user.email, name: user.name, role: user.role, tenantId: user.tenantId, tenantName: user.tenant.name }
}
