import { recordAudit } from '../audit.ts'
import { hashPassword } from '../auth/passwords.ts'
import { ValidationError } from '../errors.ts'
import { commitChange } from '../events/commit-change.ts'
import { createId } from '../ids.ts'
import { generatePassword, type UserSummary } from '../users/manage-users.ts'
import { actingTenantSelect, type ActingTenant } from './actor.ts'
import type { NewNewsroom } from './newsroom-schemas.ts'
import { systemDb, tenantDb } from './tenant-db.ts'

/**
 * A newsroom and its first admin, as an operator provisions them (`npm run newsroom -- create`):
 * no development seed, no well-known password. The admin's password is generated, returned here
 * once and stored only as its hash; the newsroom, the admin, their audit entries and the
 * user.created event commit together. No one acts (the operator is outside the newsroom), so the
 * audit entries' actor is null and say how the records came to be.
 */
export async function createNewsroom(input: NewNewsroom, via = 'command_line'): Promise<{ tenant: ActingTenant; admin: UserSummary; password: string }> {
  const sdb = systemDb()
  if (await sdb.tenant.findUnique({ where: { slug: input.slug }, select: { id: true } })) {
    throw new ValidationError([{ field: 'slug', message: `A newsroom with the slug '${input.slug}' exists already; choose another.` }])
  }
  if (await sdb.user.findUnique({ where: { email: input.adminEmail }, select: { id: true } })) {
    // E-mail addresses sign people in across all newsrooms, so they are unique service-wide.
    throw new ValidationError([{ field: 'adminEmail', message: 'This e-mail address is already in use. Each person signs in with their own address.' }])
  }
  const password = generatePassword()
  const passwordHash = await hashPassword(password)
  const tenantId = createId('ten')
  try {
    const { tenant, admin } = await commitChange(tenantDb(tenantId), tenantId, async (tx, emit) => {
      const tenant = await tx.tenant.create({
        data: { id: tenantId, name: input.name, slug: input.slug, plan: input.plan, publicSiteUrl: input.publicSiteUrl },
        select: actingTenantSelect,
      })
      const admin = await tx.user.create({
        data: { id: createId('usr'), tenantId, email: input.adminEmail, name: input.adminName, role: 'admin', passwordHash },
        select: { id: true, email: true, name: true, role: true, active: true, deactivatedAt: true, createdAt: true },
      })
      await recordAudit(tx, { tenantId, actorId: null, action: 'tenant.created', targetType: 'tenant', targetId: tenantId, metadata: { slug: tenant.slug, name: tenant.name, plan: tenant.plan, via } })
      await recordAudit(tx, { tenantId, actorId: null, action: 'user.created', targetType: 'user', targetId: admin.id, metadata: { email: admin.email, name: admin.name, role: admin.role, via } })
      await emit([{ kind: 'user.created', data: { user_id: admin.id, email: admin.email, name: admin.name, role: admin.role, created_by: null } }])
      return { tenant, admin }
    })
    return { tenant, admin, password }
  } catch (error) {
    // Two operators racing for one slug or address: the unique index decides, the loser is told why.
    if ((error as { code?: string }).code === 'P2002') {
      throw new ValidationError([{ field: 'slug', message: `The slug '${input.slug}' or the address ${input.adminEmail} was taken a moment ago; choose another.` }])
    }
    throw error
  }
}
