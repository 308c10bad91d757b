import { logger } from '../ops/logger.ts'
import type { AuthOptions } from 'next-auth'
import CredentialsProvider from 'next-auth/providers/credentials'
import type { Role } from '../db/generated/enums.ts'
import type { ActingTenant } from '../tenancy/actor.ts'
import { consumeSignInAttempt } from '../api/rate-limit.ts'
import { authenticateUser } from './members.ts'
import { loadSessionMember, sessionIdleLimitMs, signOutPortalSession, startPortalSession } from './portal-sessions.ts'
import { clientAddress } from '../security/client-address.ts'

/** The error a refused sign-in carries to the form, which explains it. */
export const tooManySignInAttempts = 'TooManySignInAttempts'

declare module 'next-auth' {
  interface Session {
    user: { id: string; email: string; name: string; role: Role; tenantId: string; tenantName: string }
    /** The newsroom the user acts in, as read with the user on this request. */
    tenant: ActingTenant
    /** The server-side session record (portal-sessions.ts) and when it last proved who is at the keyboard. */
    sessionId: string
    reauthenticatedAt: string
  }
  interface User {
    sessionId?: string
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
      logger.error({ auth: code, error: message }, 'sign-in or session error')
    },
    warn(code) {
      logger.warn({ auth: code }, 'next-auth warning')
    },
    debug() {},
  },
  pages: { signIn: '/signin' },
  useSecureCookies: secureCookies,
  providers: [
    CredentialsProvider({
      name: 'Email and password',
      credentials: { email: { label: 'Email', type: 'email' }, password: { label: 'Password', type: 'password' } },
      async authorize(credentials, request) {
        if (!credentials?.email || !credentials.password) return null
        const address = clientAddress(request.headers?.['x-forwarded-for'])
        const decision = await consumeSignInAttempt(credentials.email.trim().toLowerCase(), address)
        if (!decision.allowed) throw new Error(tooManySignInAttempts)
        const member = await authenticateUser(credentials.email, credentials.password)
        if (!member) return null
        // Only failed attempts count: a newsroom signing in all day is never throttled.
        await decision.succeeded()
        const userAgent = request.headers?.['user-agent']
        const sessionId = await startPortalSession(member, { userAgent: Array.isArray(userAgent) ? userAgent[0] : userAgent, address })
        return { id: member.id, email: member.email, name: member.name, sessionId }
      },
    }),
  ],
  events: {
    async signOut({ token }) {
      if (token?.sessionId) await signOutPortalSession(token.sessionId)
    },
  },
  callbacks: {
    // Runs on every session read: the session's own row (portal-sessions.ts) is read with its
    // member, so a session ended from Security, by a password change or by deactivation ends on
    // the next request, and a changed role applies at once. The same read supplies the acting
    // tenant, so the tRPC context needs no query of its own.
    async jwt({ token, user }) {
      const userId = user?.id ?? token.userId
      const sessionId = user?.sessionId ?? token.sessionId
      if (!userId) throw new Error('Session without a user')
      // A session signed before sessions had records has no id: it ends, and its member signs in again.
      if (!sessionId) throw new Error(memberGone)
      const live = await loadSessionMember(sessionId, userId)
      if (!live) throw new Error(memberGone)
      const { member, session } = live
      return {
        ...token,
        userId: member.id, email: member.email, name: member.name, role: member.role, tenantId: member.tenantId, tenantName: member.tenantName, tenant: member.tenant,
        sessionId, reauthenticatedAt: session.reauthenticatedAt.toISOString(),
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
      return session
    },
  },
}
