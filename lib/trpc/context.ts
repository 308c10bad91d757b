import { getServerSession, type Session } from 'next-auth'
import { authOptions } from '../auth/auth-options.ts'
import type { PortalContext } from './init.ts'
import { clientAddress } from '../security/client-address.ts'
import { createId } from '../ids.ts'

/**
 * The caller of a portal procedure. Reading the session runs the jwt callback, which reloads
 * the session's row with its member and newsroom (loadSessionMember) on every request, so an
 * ended session, a deactivated user or a changed role takes effect at once; that one read is
 * all this needs.
 */
export async function createPortalContext(request: Request): Promise<PortalContext> {
  const session = await getServerSession(authOptions).catch(() => null)
  return { ...portalContextFromSession(session, clientAddress(request.headers.get('x-forwarded-for'))), requestId: createId('req') }
}

/** The procedures' context from a next-auth session as the session callback shapes it (or none). */
export function portalContextFromSession(session: Session | null, address: string): PortalContext {
  if (!session?.user?.id || !session.tenant) return { member: null, tenant: null, clientAddress: address }
  const { id, email, name, role, tenantId, tenantName } = session.user
  return {
    member: { id, email, name, role, tenantId, tenantName },
    tenant: session.tenant,
    session: { id: session.sessionId, reauthenticatedAt: new Date(session.reauthenticatedAt) },
    clientAddress: address,
    secondFactorDueBy: session.secondFactorDueBy ? new Date(session.secondFactorDueBy) : null,
  }
}
