import { systemDb } from './tenant-db.ts'
import type { Actor } from './actor.ts'

/** The system acting in a newsroom (user null), for durable jobs such as scheduled publishing. */
export async function systemActor(tenantId: string): Promise<Actor | null> {
  const tenant = await systemDb().tenant.findUnique({ where: { id: tenantId } })
  if (!tenant) return null
  return { tenant: { id: tenant.id, slug: tenant.slug, name: tenant.name, plan: tenant.plan, publicSiteUrl: tenant.publicSiteUrl }, user: null }
}
