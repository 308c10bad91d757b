import { getServerSession } from 'next-auth'
import { redirect } from 'next/navigation'
import { cache } from 'react'
import type { Actor } from '../tenancy/actor.ts'
import { authOptions } from './auth-options.ts'

export type PortalUser = NonNullable<Awaited<ReturnType<typeof getPortalUser>>>

/**
 * The signed-in, still-active user of this request, or null. Cached per server render, so the
 * layout and the page it wraps share one session read (and one database lookup).
 */
const getPortalSession = cache(async () => {
  try {
    return (await getServerSession(authOptions)) ?? null
  } catch {
    return null
  }
})

// Past the two-factor grace, proxy.ts sends every portal page but Security there (second-factor-gate.ts).
export { secondFactorSetupPath } from './second-factor-gate.ts'

export const getPortalUser = cache(async () => (await getPortalSession())?.user ?? null)

/** The signed-in member as the domain's Actor (who, in which newsroom), or null. */
export const getPortalActor = cache(async (): Promise<(Actor & { user: NonNullable<Actor['user']> }) | null> => {
  const session = await getPortalSession()
  if (!session?.user?.id || !session.tenant) return null
  return { tenant: session.tenant, user: { id: session.user.id, role: session.user.role } }
})

/** The request's portal session as sudo mode reads it (recent-authentication.ts), or null. */
export const getPortalSessionState = cache(async (): Promise<{ id: string; reauthenticatedAt: Date } | null> => {
  const session = await getPortalSession()
  return session?.sessionId && session.reauthenticatedAt ? { id: session.sessionId, reauthenticatedAt: new Date(session.reauthenticatedAt) } : null
})

/** When the newsroom's policy wants this member to have set up a second factor by (and whether that has passed), or null. */
export const getSecondFactorDueBy = cache(async (): Promise<{ dueBy: Date; overdue: boolean } | null> => {
  const dueBy = (await getPortalSession())?.secondFactorDueBy
  return dueBy ? { dueBy: new Date(dueBy), overdue: new Date(dueBy).getTime() <= Date.now() } : null
})

/** For pages: the signed-in user, or a redirect to the sign-in page. */
export async function requirePortalUser(): Promise<PortalUser> {
  const user = await getPortalUser()
  if (!user) redirect('/signin')
  return user
}
