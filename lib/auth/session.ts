import { getServerSession } from 'next-auth'
import { headers } from 'next/headers'
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
  let session
  try {
    session = (await getServerSession(authOptions)) ?? null
  } catch {
    return null
  }
  await sendToSecondFactorSetupIfOverdue(session?.secondFactorDueBy)
  return session
})

export const secondFactorSetupPath = '/settings/security'

/**
 * Past the newsroom's two-factor grace, every portal page but Security sends the member there
 * (tRPC refuses the rest on its own, lib/trpc/init.ts). Here, not in a layout: a layout does
 * not run again when the browser moves between the pages under it, and every page reads the
 * session. The page's address comes from proxy.ts; without it (a prefetch) nothing is decided.
 */
async function sendToSecondFactorSetupIfOverdue(dueBy: string | null | undefined) {
  if (!dueBy || new Date(dueBy).getTime() > Date.now()) return
  const path = (await headers()).get('x-pathname')
  if (path && path !== secondFactorSetupPath) redirect(secondFactorSetupPath)
}

export const getPortalUser = cache(async () => (await getPortalSession())?.user ?? null)

/** The signed-in member as the domain's Actor (who, in which newsroom), or null. */
export const getPortalActor = cache(async (): Promise<(Actor & { user: NonNullable<Actor['user']> }) | null> => {
  const session = await getPortalSession()
  if (!session?.user?.id || !session.tenant) return null
  return { tenant: session.tenant, user: { id: session.user.id, role: session.user.role } }
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
