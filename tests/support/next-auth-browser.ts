import { createRequire } from 'node:module'
import path from 'node:path'
import type { AuthOptions, Session } from 'next-auth'
import { authOptions } from '../../lib/auth/auth-options.ts'

// next-auth's request handler, which its Next adapter (app/api/auth/[...nextauth]) wraps; the
// package does not export it by name, so it is loaded by path.
const require = createRequire(import.meta.url)
const { AuthHandler } = require(path.join(path.dirname(require.resolve('next-auth')), 'core/index.js')) as { AuthHandler: (params: { req: Record<string, unknown>; options: AuthOptions }) => Promise<AuthAnswer> }

type AuthAnswer = { status?: number; body?: unknown; cookies?: { name: string; value: string; options?: { maxAge?: number } }[] }

/** The secret these browsers' sessions are encrypted with (a route reading them directly needs it). */
export const nextAuthBrowserSecret = 'next-auth-browser-test-secret'
const options: AuthOptions = { ...authOptions, secret: nextAuthBrowserSecret }

/**
 * One browser of the portal, as next-auth sees it: its cookie jar, user agent and address.
 * Requests go through next-auth's own request handler (the one app/api/auth/[...nextauth]
 * serves) with the app's authOptions, so sign-in, the jwt callback and sign-out run as they do
 * behind the built server, without Next around them.
 */
export function nextAuthBrowser(from: { userAgent: string; address: string; cookies?: Record<string, string> }) {
  const jar = new Map<string, string>(Object.entries(from.cookies ?? {}))
  async function call(action: 'csrf' | 'callback' | 'session' | 'signout', method: 'GET' | 'POST', body?: Record<string, string>, providerId?: string) {
    const answer = await AuthHandler({
      req: {
        action,
        method,
        providerId,
        body,
        origin: 'http://localhost:3000',
        // As a browser sends them: the jar as a Cookie header too (authorize reads headers, not next-auth's parsed cookies).
        headers: { host: 'localhost:3000', 'user-agent': from.userAgent, 'x-forwarded-for': from.address, 'content-type': 'application/json', ...(jar.size > 0 && { cookie: [...jar].map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('; ') }) },
        cookies: Object.fromEntries(jar),
      },
      options,
    })
    for (const cookie of answer.cookies ?? []) {
      if (cookie.value === '' || cookie.options?.maxAge === 0) jar.delete(cookie.name)
      else jar.set(cookie.name, cookie.value)
    }
    return answer
  }
  const csrfToken = async () => ((await call('csrf', 'GET')).body as { csrfToken: string }).csrfToken
  return {
    /** True when next-auth set a session cookie (the password was right). */
    async signIn(email: string, password: string): Promise<boolean> {
      await call('callback', 'POST', { email, password, csrfToken: await csrfToken(), json: 'true' }, 'credentials')
      return [...jar.keys()].some((name) => name.endsWith('next-auth.session-token'))
    },
    /**
     * "Sign in with a passkey": the browser's assertion (and, as a second factor, the pending
     * sign-in's token). True when a session cookie was set; `error` is what the form is told.
     */
    async signInWithPasskey(response: unknown, pendingToken?: string): Promise<{ ok: boolean; error: string | null }> {
      const answer = await call('callback', 'POST', { response: JSON.stringify(response), ...(pendingToken && { pendingToken }), csrfToken: await csrfToken(), json: 'true' }, 'passkey')
      const ok = [...jar.keys()].some((name) => name.endsWith('next-auth.session-token'))
      const url = (answer.body as { url?: string } | undefined)?.url ?? (answer as { redirect?: string }).redirect ?? ''
      return { ok, error: ok ? null : new URL(url, 'http://localhost:3000').searchParams.get('error') }
    },

    /**
     * A credentials sign-in step through any provider: the error next-auth hands the form (the
     * `error` of the answer's URL), or null when the step signed in (a session cookie is set).
     */
    async step(providerId: string, body: Record<string, string>): Promise<{ error: string | null; signedIn: boolean }> {
      const answer = await call('callback', 'POST', { ...body, csrfToken: await csrfToken(), json: 'true' }, providerId)
      const location = (answer as { redirect?: string }).redirect ?? (answer.body as { url?: string } | undefined)?.url ?? ''
      const error = location ? new URL(location, 'http://localhost:3000').searchParams.get('error') : null
      return { error, signedIn: [...jar.keys()].some((name) => name.endsWith('next-auth.session-token')) }
    },
    /** What a page load reads: the session, or null once it has ended (next-auth then drops the cookie). */
    async session(): Promise<Session | null> {
      const body = (await call('session', 'GET')).body as Session | Record<string, never>
      return 'user' in body ? (body as Session) : null
    },
    async signOut(): Promise<void> {
      await call('signout', 'POST', { csrfToken: await csrfToken() })
    },
    /** The Cookie header this browser sends with its portal requests. */
    cookieHeader(): string {
      return [...jar].map(([name, value]) => `${name}=${value}`).join('; ')
    },
    address: from.address,
  }
}
