import { getServerSession } from 'next-auth'
import { authOptions } from '../auth/auth-options.ts'
import { loadActiveMember } from '../auth/members.ts'
import { systemDb } from '../tenancy/tenant-db.ts'
import type { PortalContext } from './init.ts'

/**
 * The caller of a portal procedure, read fresh from the database on every request so a
 * deactivated user or a changed role takes effect at once.
 */
export async function createPortalContext(request: Request): Promise<PortalContext> {
  const clientAddress = request.headers.get('x-forwarded-for')?.split(',')[0]?.trim() || 'unknown'
  const session = await getServerSession(authOptions).catch(() => null)
  const member = session?.user?.id ? await loadActiveMember(session.user.id) : null
  if (!member) return { member: null, tenant: null, clientAddress }
  const tenant = await systemDb().tenant.findUnique({
    where: { id: member.tenantId },
    select: { id: true, slug: true, name: true, plan: true, publicSiteUrl: true },
  })
  return { member, tenant, clientAddress }
}
