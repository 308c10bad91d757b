import type { NextRequest } from 'next/server'
import { getToken } from 'next-auth/jwt'
import { loadSessionMember } from './portal-sessions.ts'
import { sessionSecondFactorOverdue } from './two-factor-policy.ts'

export { secondFactorSetupPath } from './portal-paths.ts'

/**
 * Whether this page request comes from a member past the newsroom's two-factor grace, so
 * proxy.ts sends it to Security. Decided before rendering, not while: a redirect thrown while
 * the portal layout renders on a client navigation leaves the browser with a layout it keeps
 * reusing for Security, a blank page that refetches without end.
 *
 * The session cookie says whether the member was covered when it was last written; only then is
 * the database asked, because a member who set a factor up since still carries the old deadline.
 * A member covered by a policy switched on after the cookie was written is caught once the cookie
 * is rewritten (any tRPC call does), and tRPC refuses them everything but Security meanwhile.
 */
export async function secondFactorOverdue(request: NextRequest, now = new Date()): Promise<boolean> {
  let token
  try {
    token = await getToken({ req: request, secret: process.env.NEXTAUTH_SECRET, secureCookie: secureSessionCookie() })
  } catch {
    return false
  }
  if (!token?.secondFactorDueBy || !token.sessionId || !token.userId) return false
  if (new Date(token.secondFactorDueBy).getTime() > now.getTime()) return false
  const live = await loadSessionMember(token.sessionId, token.userId, now)
  // An ended session is the page's to handle: it sends the browser to sign in.
  return live !== null && (await sessionSecondFactorOverdue(live, token.signInMethod, now))
}

/** The same choice as auth-options.ts's useSecureCookies, which names the cookie. */
function secureSessionCookie(): boolean {
  return process.env.NODE_ENV === 'production' && (process.env.NEXTAUTH_URL ?? '').startsWith('https://')
}
