import { getServerSession } from 'next-auth'
import { authOptions } from '../auth/auth-options.ts'
import type { PortalContext } from './init.ts'
import { clientAddress } from '../security/client-address.ts'

/**
 * The caller of a portal procedure. Reading the session runs the jwt callback, which reloads
 * the user and their newsroom from the database (loadActiveMember) on every request, so a
 * deactivated user or a changed role takes effect at once; that one read is all this needs.
 */
export async function createPortalContext(request: Request): Promise<PortalContext> {
  const session = await getServerSession(authOptions).catch(() => null)
  const address = clientAddress(request.headers.get('x-forwarded-for'))
  if (!session?.user?.id || !session.tenant) return { member: null, tenant: null, clientAddress: address }
  const { id, email, name, role, tenantId, tenantName } = session.user
  return {
    member: { id, email, name, role, tenantId, tenantName },
    tenant: session.tenant,
    session: { id: session.sessionId, reauthenticatedAt: new Date(session.reauthenticatedAt) },
    clientAddress: address,
  }
}
