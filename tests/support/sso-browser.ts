import { createRequire } from 'node:module'
import path from 'node:path'
import type { AuthOptions, Session } from 'next-auth'
import { authOptionsFor } from '../../lib/auth/auth-options.ts'
import { ssoFailureRedirect } from '../../lib/auth/sso-sign-in.ts'

// next-auth's request handler, which app/api/auth/[...nextauth] wraps (see next-auth-browser.ts).
const require = createRequire(import.meta.url)
const { AuthHandler } = require(path.join(path.dirname(require.resolve('next-auth')), 'core/index.js')) as { AuthHandler: (params: { req: Record<string, unknown>; options: AuthOptions }) => Promise<AuthAnswer> }

type AuthAnswer = { status?: number; body?: unknown; redirect?: string; cookies?: { name: string; value: string; options?: { maxAge?: number } }[] }

export const portalOrigin = 'http://localhost:3000'
const secret = 'sso-browser-test-secret'

/** Where the identity provider's login page sends the browser, and what the test may do on the way. */
export type SsoJourney = {
  /** The login typed on the provider's own login page. */
  login: string
  /** Changes the authorization request before the browser follows it (another client, another provider, another nonce). */
  tamperAuthorization?: (url: URL) => URL
  /** Changes the provider's answer before it reaches the portal's callback (another state). */
  tamperCallback?: (url: URL) => URL
}

/**
 * One browser: next-auth's handler for the portal's /api/auth (with the options the route builds
 * per request, authOptionsFor), and real HTTP with its own cookie jar for the identity provider,
 * following every redirect between them as a browser does.
 */
export function ssoBrowser(from = { userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0', address: '198.51.100.30' }) {
  const portalJar = new Map<string, string>()
  const providerJar = new Map<string, string>()

  async function portal(action: string, method: 'GET' | 'POST', extra: { providerId?: string; body?: Record<string, string>; query?: Record<string, string> } = {}) {
    const options = { ...(await authOptionsFor(extra.providerId, from)), secret }
    const answer = await AuthHandler({
      req: {
        action, method, providerId: extra.providerId, body: extra.body, query: extra.query ?? {}, error: extra.query?.error,
        origin: portalOrigin,
        headers: { host: 'localhost:3000', 'user-agent': from.userAgent, 'x-forwarded-for': from.address, 'content-type': 'application/x-www-form-urlencoded' },
        cookies: Object.fromEntries(portalJar),
      },
      options,
    })
    for (const cookie of answer.cookies ?? []) {
      if (cookie.value === '' || cookie.options?.maxAge === 0) portalJar.delete(cookie.name)
      else portalJar.set(cookie.name, cookie.value)
    }
    return answer
  }

  async function provider(url: string, init: { method?: string; form?: Record<string, string> } = {}) {
    const response = await fetch(url, {
      method: init.method ?? 'GET',
      redirect: 'manual',
      headers: {
        cookie: [...providerJar].map(([name, value]) => `${name}=${value}`).join('; '),
        ...(init.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: init.form ? new URLSearchParams(init.form).toString() : undefined,
      signal: AbortSignal.timeout(10_000),
    })
    for (const header of response.headers.getSetCookie()) {
      const [pair] = header.split(';')
      const [name, ...value] = pair!.split('=')
      if (/expires=Thu, 01 Jan 1970/i.test(header) || value.join('=') === '') providerJar.delete(name!.trim())
      else providerJar.set(name!.trim(), value.join('='))
    }
    return response
  }

  return {
    /**
     * "Sign in with …" through the newsroom's provider, to the end: where the portal sent the
     * browser last (the portal's home, or the sign-in page with the reason it refused).
     */
    async signIn(slug: string, journey: SsoJourney): Promise<string> {
      const providerId = `sso-${slug}`
      const csrf = (await portal('csrf', 'GET')).body as { csrfToken: string }
      const start = await portal('signin', 'POST', { providerId, body: { csrfToken: csrf.csrfToken, callbackUrl: `${portalOrigin}/` } })
      if (!start.redirect) throw new Error(`The portal did not redirect to the identity provider: ${JSON.stringify(start)}`)
      let next = start.redirect
      if (!next.startsWith(portalOrigin) && journey.tamperAuthorization) next = journey.tamperAuthorization(new URL(next)).toString()
      for (let hop = 0; hop < 20; hop++) {
        if (next.startsWith(`${portalOrigin}/api/auth/callback/`)) {
          let callback = new URL(next)
          if (journey.tamperCallback) callback = journey.tamperCallback(callback)
          const answer = await portal('callback', 'GET', { providerId: callback.pathname.split('/').pop(), query: Object.fromEntries(callback.searchParams) })
          next = answer.redirect ?? `(no redirect: ${answer.status})`
          // As app/api/auth/[...nextauth]/route.ts does: a refused answer goes back to the newsroom's sign-in page.
          const back = ssoFailureRedirect(callback.pathname.split('/').pop(), answer.redirect)
          if (back) return `${portalOrigin}${back}`
          // next-auth's error page sends on to the portal's sign-in page (pages.error).
          if (next.startsWith(`${portalOrigin}/api/auth/error`)) next = (await portal('error', 'GET', { query: Object.fromEntries(new URL(next).searchParams) })).redirect ?? next
          return next
        }
        if (next.startsWith(portalOrigin)) return next
        const response = await provider(next)
        if (response.status >= 300 && response.status < 400) {
          next = new URL(response.headers.get('location')!, next).toString()
          continue
        }
        const page = await response.text()
        const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1]
        const prompt = /name="prompt" value="([^"]+)"/.exec(page)?.[1]
        if (!action || !prompt) throw new Error(`The identity provider answered ${response.status} without a form: ${page.slice(0, 2000)}`)
        const submitted = await provider(new URL(action, next).toString(), { method: 'POST', form: prompt === 'login' ? { prompt, login: journey.login, password: 'any' } : { prompt } })
        if (submitted.status < 300 || submitted.status >= 400) throw new Error(`The identity provider's ${prompt} page answered ${submitted.status}: ${(await submitted.text()).slice(0, 2000)}`)
        next = new URL(submitted.headers.get('location')!, next).toString()
      }
      throw new Error('Too many redirects between the portal and the identity provider.')
    },
    async passwordSignIn(email: string, password: string): Promise<AuthAnswer> {
      const csrf = (await portal('csrf', 'GET')).body as { csrfToken: string }
      return portal('callback', 'POST', { providerId: 'credentials', body: { email, password, csrfToken: csrf.csrfToken, json: 'true' } })
    },
    /** The second step the sign-in page shows after the provider (or a password): a code for the pending sign-in. */
    async secondFactor(pendingToken: string, code: string): Promise<AuthAnswer> {
      const csrf = (await portal('csrf', 'GET')).body as { csrfToken: string }
      return portal('callback', 'POST', { providerId: 'second-factor', body: { pendingToken, code, csrfToken: csrf.csrfToken, json: 'true' } })
    },
    async session(): Promise<Session | null> {
      const body = (await portal('session', 'GET')).body as Session | Record<string, never>
      return 'user' in body ? (body as Session) : null
    },
  }
}
