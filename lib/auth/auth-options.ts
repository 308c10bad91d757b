import { logger } from '../ops/logger.ts'
import type { AuthOptions } from 'next-auth'
import CredentialsProvider from 'next-auth/providers/credentials'
import type { OAuthConfig } from 'next-auth/providers/oauth'
import { recordAudit } from '../audit.ts'
import { systemDb } from '../tenancy/tenant-db.ts'
import type { Role } from '../db/generated/enums.ts'
import type { ActingTenant } from '../tenancy/actor.ts'
import { knownBrowserAccountSelect, knownBrowserCookie, knownBrowserCookieValue, rememberedBrowser } from './known-browser.ts'
import { beginSignInAttempt } from './sign-in-throttle.ts'
import { authenticateUser, loadActiveMember } from './members.ts'
import { consumePendingSignIn, issuePendingSignIn, readPendingSignIn, recordFailedSecondFactor } from './pending-sign-in.ts'
import { hasSecondFactor, secondFactorKinds, secondFactorsOf } from './second-factors.ts'
import { isTotpShaped, verifySecondFactorCode } from './two-factor.ts'
import { sessionSecondFactorDueBy } from './two-factor-policy.ts'
import { loadSessionMember, proofBegan, sessionIdleLimitMs, SignInOvertakenError, signOutPortalSession, startPortalSession } from './portal-sessions.ts'
import { clientAddress } from '../security/client-address.ts'
import { loadSsoLogin, slugOfSsoProvider, ssoProviderId, ssoRequirement, type SsoLogin } from './sso-connection.ts'
import { portalFactorAfterSso, portalFactorStepUrl, recordSsoTokenCheckFailure, resolveSsoMember, type SsoClaims } from './sso-sign-in.ts'
import { PasskeyRefusedError, verifyPasskeySignIn } from './passkeys.ts'
import { authenticationResponseSchema } from './security-schemas.ts'
import type { Member } from './members.ts'
import { withAuthorizeFailures } from './authorize-failures.ts'

/** The error a refused sign-in carries to the form, which explains it: `TooManySignInAttempts:<seconds to wait>[:locked]`. */
export const tooManySignInAttempts = 'TooManySignInAttempts'
/** A passkey sign-in refused: `PasskeyRefused:<what to tell the person>`. */
export const passkeyRefused = 'PasskeyRefused'
/** The password was right but the member's newsroom signs in through its identity provider: `SsoRequired:<slug>`. */
export const ssoRequired = 'SsoRequired'
/** The password was right and the member has a second factor: `SecondFactorRequired:<pending token>`, no session yet. */
export const secondFactorRequired = 'SecondFactorRequired'
/** A wrong second-factor code: `SecondFactorWrong:<attempts left>`. */
export const secondFactorWrong = 'SecondFactorWrong'
/** A TOTP code that was accepted once already: `SecondFactorReused:<attempts left>` (it counts as a wrong one). */
export const secondFactorReused = 'SecondFactorReused'
/** The pending sign-in expired, was used, or died of too many wrong codes: start again with the password. */
export const secondFactorExpired = 'SecondFactorExpired'

/** The coded refusals the sign-in form explains; any other failure of authorize is masked (authorize-failures.ts). */
const signInCodes = [tooManySignInAttempts, passkeyRefused, ssoRequired, secondFactorRequired, secondFactorWrong, secondFactorReused, secondFactorExpired]

declare module 'next-auth' {
  interface Session {
    user: { id: string; email: string; name: string; role: Role; tenantId: string; tenantName: string }
    /** The newsroom the user acts in, as read with the user on this request. */
    tenant: ActingTenant
    /** The server-side session record (portal-sessions.ts) and when it last proved who is at the keyboard. */
    sessionId: string
    reauthenticatedAt: string
    /** When the newsroom's two-factor policy wants this member to have set a factor up by (ISO), or null. */
    secondFactorDueBy: string | null
  }
  interface User {
    sessionId?: string
    /** How this session was started; an identity provider's sign-in is trusted for its own MFA. */
    signInMethod?: SignInMethod
  }
}

declare module 'next-auth/jwt' {
  interface JWT {
    userId?: string
    role?: Role
    tenantId?: string
    tenantName?: string
    tenant?: ActingTenant
    sessionId?: string
    reauthenticatedAt?: string
    signInMethod?: SignInMethod
    secondFactorDueBy?: string | null
  }
}

const secureCookies = process.env.NODE_ENV === 'production' && (process.env.NEXTAUTH_URL ?? '').startsWith('https://')

const memberGone = 'Session ended, or its user is deactivated or gone'

export const authOptions: AuthOptions = {
  session: { strategy: 'jwt', maxAge: sessionIdleLimitMs / 1000 },
  // next-auth prints a whole stack trace for every error it catches; a deactivated user's
  // stale session is an expected condition (the session simply ends), so it is one info line.
  logger: {
    error(code, metadata) {
      const message = metadata instanceof Error ? metadata.message : ((metadata as { error?: Error; message?: string })?.error?.message ?? (metadata as { message?: string })?.message)
      if (code === 'JWT_SESSION_ERROR' && message === memberGone) return logger.info({ auth: code }, 'session ended: signed out elsewhere, ended, or its user deactivated or removed')
      // A newsroom's provider answer refused by the token checks: in that newsroom's audit log too.
      const providerId = (metadata as { providerId?: unknown })?.providerId
      if (code === 'OAUTH_CALLBACK_ERROR' && typeof providerId === 'string') {
        recordSsoTokenCheckFailure(providerId, message ?? 'unknown').catch((error: Error) => logger.error({ providerId, error: error.message }, 'could not audit a refused SSO sign-in'))
      }
      logger.error({ auth: code, error: message }, 'sign-in or session error')
    },
    warn(code) {
      logger.warn({ auth: code }, 'next-auth warning')
    },
    debug() {},
  },
  // An identity provider's refusal (state, nonce, issuer, audience, a code it will not redeem)
  // lands on the sign-in page, which explains it, not on next-auth's own error page.
  pages: { signIn: '/signin', error: '/signin' },
  useSecureCookies: secureCookies,
  providers: [
    CredentialsProvider({
      name: 'Email and password',
      credentials: { email: { label: 'Email', type: 'email' }, password: { label: 'Password', type: 'password' } },
      authorize: withAuthorizeFailures('password', signInCodes, async (credentials, request) => {
        // Before the password is checked: a password change, reset, deactivation or "sign out
        // everywhere" stamped after this, or committed after the hash was read, ends the sign-in
        // (startPortalSession, proofBegan), at either step.
        const arrivedAt = new Date()
        if (!credentials?.email || !credentials.password) return null
        const address = clientAddress(request.headers?.['x-forwarded-for'])
        // Failures are counted per account and per address (sign-in-throttle.ts): someone
        // guessing locks out their own addresses, not the member.
        const attempt = await beginSignInAttempt(credentials.email, address, 'password', 'password', { knownBrowserCookie: knownBrowserCookieValue(request.headers?.cookie) })
        if (attempt.refusal) throw new Error(`${tooManySignInAttempts}:${attempt.refusal.retryAfterSeconds}${attempt.refusal.needsSecondFactor ? ':locked' : ''}`)
        const member = await authenticateUser(credentials.email, credentials.password)
        if (!member) {
          await attempt.failed('wrong_password')
          return null
        }
        const requirement = await ssoRequirement(member.tenantId)
        if (requirement) {
          // "Require SSO": passwords are off for the newsroom. Its admins keep them as the way
          // back in when the identity provider fails or is misconfigured; each use is audited.
          if (member.role !== 'admin') throw new Error(`${ssoRequired}:${requirement.slug}`)
          await recordAudit(systemDb(), { tenantId: member.tenantId, actorId: member.id, action: 'sso.recovery_sign_in', targetType: 'user', targetId: member.id, metadata: { address: address.slice(0, 64) } })
        }
        // Only failed attempts count: a newsroom signing in all day is never throttled.
        await attempt.succeeded()
        // With a second factor the password alone yields no session: the browser gets a
        // short-lived token for the second step (the `second-factor` or `passkey` provider).
        const factors = await secondFactorsOf(member.id)
        // The step offers everything the member has: `<token>:totp,passkey,recovery_code`.
        const kinds = secondFactorKinds(factors).join(',')
        const provedSince = proofBegan(arrivedAt, member.credentialsChangedAt)
        if (hasSecondFactor(factors)) throw new Error(`${secondFactorRequired}:${await issuePendingSignIn(member, provedSince)}:${kinds}`)
        try {
          return await signedIn(member, request.headers, address, 'password', provedSince)
        } catch (error) {
          // The password it proved may be the one just changed: as a wrong password, to try again.
          if (error instanceof SignInOvertakenError) return null
          throw error
        }
      }),
    }),
    CredentialsProvider({
      id: 'passkey',
      name: 'Passkey',
      // `response`: the browser's WebAuthn assertion as JSON. `pendingToken`: when the passkey is
      // the second step of a sign-in whose password step passed (lib/auth/pending-sign-in.ts).
      credentials: { response: { label: 'Passkey answer', type: 'text' }, pendingToken: { label: 'Pending sign-in', type: 'text' } },
      authorize: withAuthorizeFailures('passkey', signInCodes, async (credentials, request) => {
        // Before the passkey is checked: a change stamped after this, or committed after the
        // passkey was read, ends the sign-in (startPortalSession, proofBegan).
        const arrivedAt = new Date()
        const parsed = authenticationResponseSchema.safeParse(parseJson(credentials?.response))
        if (!parsed.success) throw new Error(`${passkeyRefused}:The browser's passkey answer was incomplete. Try again.`)
        const address = clientAddress(request.headers?.['x-forwarded-for'])
        try {
          const pending = credentials?.pendingToken ? await readPendingSignIn(credentials.pendingToken) : null
          if (credentials?.pendingToken && !pending) throw new PasskeyRefusedError('That sign-in expired. Enter your e-mail and password again.')
          const member = await verifyPasskeySignIn(parsed.data, pending && { userId: pending.userId, tenantId: pending.tenantId })
          if (pending) await consumePendingSignIn(pending.id)
          else {
            // Alone, a passkey is a sign-in like a password: "require SSO" applies to it the same way.
            const requirement = await ssoRequirement(member.tenantId)
            if (requirement) {
              if (member.role !== 'admin') throw new Error(`${ssoRequired}:${requirement.slug}`)
              await recordAudit(systemDb(), { tenantId: member.tenantId, actorId: member.id, action: 'sso.recovery_sign_in', targetType: 'user', targetId: member.id, metadata: { address: address.slice(0, 64), with: 'passkey' } })
            }
          }
          // As the second step, the sign-in's proof began with its password (pending-sign-in.ts);
          // alone, from its own arrival and the credentialsChangedAt read with the passkey (break58).
          return await signedIn(member, request.headers, address, pending ? 'second-factor' : 'passkey', pending?.provedSince ?? proofBegan(arrivedAt, member.credentialsChangedAt))
        } catch (error) {
          if (error instanceof PasskeyRefusedError || error instanceof SignInOvertakenError) throw new Error(`${passkeyRefused}:${error.message}`)
          throw error
        }
      }),
    }),
    // The second step: the pending sign-in's token and a code from the authenticator app or a
    // recovery code. Five wrong codes kill the pending sign-in (the password is asked again).
    CredentialsProvider({
      id: 'second-factor',
      name: 'Second factor',
      credentials: { pendingToken: { label: 'Pending sign-in', type: 'text' }, code: { label: 'Code', type: 'text' } },
      authorize: withAuthorizeFailures('second-factor', signInCodes, async (credentials, request) => {
        if (!credentials?.pendingToken || !credentials.code) return null
        const pending = await readPendingSignIn(credentials.pendingToken)
        if (!pending) throw new Error(secondFactorExpired)
        const address = clientAddress(request.headers?.['x-forwarded-for'])
        const member = await loadActiveMember(pending.userId)
        if (!member) return null
        // Wrong codes count against the same per-account and per-address limits as wrong
        // passwords: a right password (which gives its attempt back) cannot buy endless
        // batches of five guesses at the code.
        // A recovery code is counted apart: the authenticator codes' lock (everywhere) does not refuse it.
        // Counted as what is checked: the kind is decided on the very text verified (a code padded
        // past the cut would otherwise be counted as a recovery code and checked as a TOTP code).
        const code = String(credentials.code).slice(0, 40)
        // A known browser (its note) is not refused for what others behind its address spent.
        const attempt = await beginSignInAttempt(member.email, address, 'second_factor', isTotpShaped(code) ? 'code' : 'recovery_code', { knownBrowserCookie: knownBrowserCookieValue(request.headers?.cookie) })
        if (attempt.refusal) throw new Error(`${tooManySignInAttempts}:${attempt.refusal.retryAfterSeconds}`)
        const used = await verifySecondFactorCode({ id: pending.userId, tenantId: pending.tenantId }, code, address)
        if (!used || used === 'reused') {
          await attempt.failed(used === 'reused' ? 'reused_code' : 'wrong_code')
          const left = await recordFailedSecondFactor(pending.id, address)
          throw new Error(left > 0 ? `${used === 'reused' ? secondFactorReused : secondFactorWrong}:${left}` : secondFactorExpired)
        }
        await attempt.succeeded()
        await consumePendingSignIn(pending.id)
        try {
          // The sign-in's proof began with its password: a reset, password change or the like
          // that landed since, even before this step, ends it (startPortalSession, pending-sign-in.ts).
          return await signedIn(member, request.headers, address, 'second-factor', pending.provedSince)
        } catch (error) {
          if (error instanceof SignInOvertakenError) throw new Error(secondFactorExpired)
          throw error
        }
      }),
    }),
  ],
  events: {
    async signOut({ token }) {
      if (token?.sessionId) await signOutPortalSession(token.sessionId)
    },
  },
  callbacks: {
    // Password sign-ins were decided in authorize; a sign-in through a newsroom's identity
    // provider is decided in authOptionsFor's own signIn callback.
    signIn: () => true,
    // Runs on every session read: the session's own row (portal-sessions.ts) is read with its
    // member, so a session ended from Security, by a password change or by deactivation ends on
    // the next request, and a changed role applies at once. The same read supplies the acting
    // tenant, so the tRPC context needs no query of its own.
    async jwt({ token, user }) {
      const userId = user?.id ?? token.userId
      const sessionId = user?.sessionId ?? token.sessionId
      const signInMethod = user?.signInMethod ?? token.signInMethod
      if (!userId) throw new Error('Session without a user')
      // A session signed before sessions had records has no id: it ends, and its member signs in again.
      if (!sessionId) throw new Error(memberGone)
      const live = await loadSessionMember(sessionId, userId)
      if (!live) throw new Error(memberGone)
      const { member, session } = live
      const dueBy = await sessionSecondFactorDueBy(live, signInMethod)
      return {
        ...token,
        userId: member.id, email: member.email, name: member.name, role: member.role, tenantId: member.tenantId, tenantName: member.tenantName, tenant: member.tenant,
        sessionId, reauthenticatedAt: session.reauthenticatedAt.toISOString(), signInMethod, secondFactorDueBy: dueBy?.toISOString() ?? null,
      }
    },
    async session({ session, token }) {
      session.user = {
        id: token.userId!,
        email: token.email ?? '',
        name: token.name ?? '',
        role: token.role!,
        tenantId: token.tenantId!,
        tenantName: token.tenantName!,
      }
      session.tenant = token.tenant!
      session.sessionId = token.sessionId!
      session.reauthenticatedAt = token.reauthenticatedAt!
      session.secondFactorDueBy = token.secondFactorDueBy ?? null
      return session
    },
  },
}

/** A member who proved who they are (their proof began at `provedSince`): their session record starts, and next-auth's jwt callback reads it. */
async function signedIn(member: Member, headers: Record<string, unknown> | undefined, address: string, signInMethod: SignInMethod, provedSince: Date) {
  const userAgent = headers?.['user-agent'] as string | string[] | undefined
  const sessionId = await startPortalSession(member, { userAgent: Array.isArray(userAgent) ? userAgent[0] : userAgent, address }, provedSince)
  await rememberThisBrowser(member.id, headers?.cookie as string | string[] | undefined)
  return { id: member.id, email: member.email, name: member.name, sessionId, signInMethod }
}

/** Notes on the browser that it completed a sign-in to the account (known-browser.ts), for the day the account is locked. */
async function rememberThisBrowser(userId: string, cookieHeader: string | string[] | undefined) {
  // The note is for the password the account has now: a new one retires it (known-browser.ts).
  const account = await systemDb().user.findUnique({ where: { id: userId }, select: knownBrowserAccountSelect })
  if (!account) return
  const { value, maxAgeSeconds } = rememberedBrowser(knownBrowserCookieValue(cookieHeader), account)
  try {
    const { cookies } = await import('next/headers')
    ;(await cookies()).set(knownBrowserCookie, value, { httpOnly: true, sameSite: 'lax', secure: secureCookies, path: '/api/auth', maxAge: maxAgeSeconds })
  } catch {
    // Outside a request (a script or a test calling authorize directly) there is no browser to note.
  }
}

function parseJson(text: string | undefined): unknown {
  if (!text || text.length > 64_000) return null
  try {
    return JSON.parse(text)
  } catch {
    return null
  }
}

/** How a portal session began: an SSO sign-in stands in for the portal's factor only when the newsroom trusts its provider's MFA (two-factor-policy.ts). */
type SignInMethod = 'password' | 'sso' | 'second-factor' | 'passkey'

/** The browser a sign-in comes from, as the session record keeps it. */
export type SignInOrigin = { userAgent?: string | null; address: string; /** The request's Cookie header (its known-browser note is kept and renewed). */ cookie?: string | null }

/**
 * The options of one request to /api/auth (next-auth's advanced initialization): the shared
 * ones, plus the named newsroom's identity provider when the request is a sign-in through it
 * (`/api/auth/signin/sso-<slug>`, `/api/auth/callback/sso-<slug>`). A provider is built from
 * the newsroom's stored settings on each such request, so a change applies to the next sign-in.
 */
export async function authOptionsFor(providerId: string | undefined, from: SignInOrigin): Promise<AuthOptions> {
  // Before this request checks the provider's answer: a change that ends the member's sessions
  // stamped after this, or committed after the member was read, ends the sign-in too (proofBegan).
  const arrivedAt = new Date()
  const slug = slugOfSsoProvider(providerId)
  const login = slug ? await loadSsoLogin(slug) : null
  if (!login) return authOptions
  return {
    ...authOptions,
    providers: [...authOptions.providers, ssoProvider(login)],
    callbacks: {
      ...authOptions.callbacks,
      async signIn({ user, account, profile }) {
        if (account?.provider !== ssoProviderId(login.slug)) return true
        const outcome = await resolveSsoMember(login, (profile ?? {}) as SsoClaims)
        if ('refused' in outcome) return `/signin?${new URLSearchParams({ newsroom: login.slug, error: outcome.refused })}`
        // The newsroom asks for the portal's factor on top of the provider's (or the member is an
        // admin and admins must use it): no session yet, the second step as after a password.
        const provedSince = proofBegan(arrivedAt, outcome.credentialsChangedAt)
        const step = await portalFactorAfterSso(outcome.member, provedSince)
        if (step) return portalFactorStepUrl(login.slug, step)
        // next-auth hands this same object to the jwt callback, which reads the member's id and
        // the new session record from it, exactly as after a password sign-in.
        user.id = outcome.member.id
        user.email = outcome.member.email
        user.name = outcome.member.name
        try {
          user.sessionId = await startPortalSession(outcome.member, { userAgent: from.userAgent, address: from.address }, provedSince)
        } catch (error) {
          if (error instanceof SignInOvertakenError) return `/signin?${new URLSearchParams({ newsroom: login.slug, error: 'SignInOvertaken' })}`
          throw error
        }
        user.signInMethod = 'sso'
        // Noted as after a password or passkey: the password way back in works from this browser while strangers lock the account.
        await rememberThisBrowser(outcome.member.id, from.cookie ?? undefined)
        return true
      },
    },
  }
}

/**
 * The newsroom's OpenID Connect provider: discovery from its issuer, the authorization code
 * flow with PKCE, state and nonce, and the member read from the ID token, whose signature,
 * issuer, audience, nonce and expiry openid-client checks before next-auth hands it over.
 */
function ssoProvider(login: SsoLogin): OAuthConfig<SsoClaims & { sub: string }> {
  return {
    id: ssoProviderId(login.slug),
    name: login.displayName,
    type: 'oauth',
    wellKnown: `${login.issuer}/.well-known/openid-configuration`,
    clientId: login.clientId,
    clientSecret: login.clientSecret,
    authorization: { params: { scope: 'openid email profile' } },
    idToken: true,
    checks: ['pkce', 'state', 'nonce'],
    profile: (claims) => ({ id: String(claims.sub), email: typeof claims.email === 'string' ? claims.email : null, name: typeof claims.name === 'string' ? claims.name : null }),
  }
}
