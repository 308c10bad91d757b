import { logger } from '../ops/logger.ts'
import type { AuthOptions } from 'next-auth'
import CredentialsProvider from 'next-auth/providers/credentials'
import type { Role } from '../db/generated/enums.ts'
import type { ActingTenant } from '../tenancy/actor.ts'
import { consumeSignInAttempt } from '../api/rate-limit.ts'
import { authenticateUser, loadActiveMember } from './members.ts'
import { clientAddress } from '../security/client-address.ts'

/** The error a refused sign-in carries to the form, which explains it. */
export const tooManySignInAttempts = 'TooManySignInAttempts'

declare module 'next-auth' {
  interface Session {
    user: { id: string; email: string; name: string; role: Role; tenantId: string; tenantName: string }
    /** The newsroom the user acts in, as read with the user on this request. */
    tenant: ActingTenant
  }
}

declare module 'next-auth/jwt' {
  interface JWT {
    userId?: string
    role?: Role
    tenantId?: string
    tenantName?: string
    tenant?: ActingTenant
  }
}

const secureCookies = process.env.NODE_ENV === 'production' && (process.env.NEXTAUTH_URL ?? '').startsWith('https://')

const memberGone = 'User is deactivated or gone'

export const authOptions: AuthOptions = {
  session: { strategy: 'jwt', maxAge: 8 * 60 * 60 },
  // next-auth prints a whole stack trace for every error it catches; a deactivated user's
  // stale session is an expected condition (the session simply ends), so it is one info line.
  logger: {
    error(code, metadata) {
      const message = metadata instanceof Error ? metadata.message : ((metadata as { error?: Error; message?: string })?.error?.message ?? (metadata as { message?: string })?.message)
      if (code === 'JWT_SESSION_ERROR' && message === memberGone) return logger.info({ auth: code }, 'session ended: the user was deactivated or removed')
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
        return { id: member.id, email: member.email, name: member.name }
      },
    }),
  ],
  callbacks: {
    // Runs on every session read: a deactivated user loses the session on the next request,
    // and a changed role applies at once. The same read supplies the acting tenant, so the
    // tRPC context needs no query of its own.
    async jwt({ token, user }) {
      const userId = user?.id ?? token.userId
      if (!userId) throw new Error('Session without a user')
      const member = await loadActiveMember(userId)
      if (!member) throw new Error(memberGone)
      return { ...token, userId: member.id, email: member.email, name: member.name, role: member.role, tenantId: member.tenantId, tenantName: member.tenantName, tenant: member.tenant }
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
      return session
    },
  },
}
