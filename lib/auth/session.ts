import { getServerSession } from 'next-auth'
import { redirect } from 'next/navigation'
import { authOptions } from './auth-options.ts'

export type PortalUser = NonNullable<Awaited<ReturnType<typeof getPortalUser>>>

/** The signed-in, still-active user of this request, or null. */
export async function getPortalUser() {
  try {
    const session = await getServerSession(authOptions)
    return session?.user ?? null
  } catch {
    return null
  }
}

/** For pages: the signed-in user, or a redirect to the sign-in page. */
export async function requirePortalUser(): Promise<PortalUser> {
  const user = await getPortalUser()
  if (!user) redirect('/signin')
  return user
}
