import { getServerSession } from 'next-auth'
import { redirect } from 'next/navigation'
import { cache } from 'react'
import { authOptions } from './auth-options.ts'

export type PortalUser = NonNullable<Awaited<ReturnType<typeof getPortalUser>>>

/**
 * The signed-in, still-active user of this request, or null. Cached per server render, so the
 * layout and the page it wraps share one session read (and one database lookup).
 */
export const getPortalUser = cache(async () => {
  try {
    const session = await getServerSession(authOptions)
    return session?.user ?? null
  } catch {
    return null
  }
})

/** For pages: the signed-in user, or a redirect to the sign-in page. */
export async function requirePortalUser(): Promise<PortalUser> {
  const user = await getPortalUser()
  if (!user) redirect('/signin')
  return user
}
