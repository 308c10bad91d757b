import { systemDb } from './tenant-db.ts'
import { actingTenantSelect, type Actor } from './actor.ts'

/** The system acting in a newsroom (user null), for durable jobs such as scheduled publishing. */
export async function systemActor(tenantId: string): Promise<Actor | null> {
  const tenant = await systemDb().tenant.findUnique({ where: { id: tenantId }, select: actingTenantSelect })
  return tenant ? { tenant, user: null } : null
}
