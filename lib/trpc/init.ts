import { initTRPC, TRPCError } from '@trpc/server'
import { can, refusalFor } from '../auth/permissions.ts'
import type { Scope } from '../tokens/scopes.ts'
import { DomainError, ValidationError } from '../errors.ts'
import type { Member } from '../auth/members.ts'
import type { PortalSessionState } from '../auth/portal-sessions.ts'
import { assertRecentlyAuthenticated } from '../auth/recent-authentication.ts'
import type { Actor, ActingTenant } from '../tenancy/actor.ts'

export type PortalContext = {
  member: Member | null
  tenant: ActingTenant | null
  /** The portal session making the request (portal-sessions.ts): what sudo mode and Security read. */
  session?: PortalSessionState | null
  /** The caller's address as client-address.ts finds it (for the sign-in limits re-authentication shares). */
  clientAddress?: string
  /** When the newsroom's two-factor policy wants the member to have a factor by (two-factor-policy.ts), or null. */
  secondFactorDueBy?: Date | null
}

const t = initTRPC.context<PortalContext>().create({
  errorFormatter({ shape, error }) {
    const cause = error.cause
    return {
      ...shape,
      data: {
        ...shape.data,
        // The domain's own code and field errors, so forms can show them beside the fields.
        domainCode: cause instanceof DomainError ? cause.code : null,
        fieldErrors: cause instanceof ValidationError || (cause instanceof DomainError && 'fieldErrors' in cause) ? (cause.fieldErrors as ValidationError['fieldErrors']) : null,
      },
    }
  },
})

const statusToTrpc: Record<number, TRPCError['code']> = {
  400: 'BAD_REQUEST',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  412: 'PRECONDITION_FAILED',
  413: 'PAYLOAD_TOO_LARGE',
  422: 'UNPROCESSABLE_CONTENT',
  429: 'TOO_MANY_REQUESTS',
}

/** Domain errors become tRPC errors with the same message; the domain decides, tRPC only carries. */
const mapDomainErrors = t.middleware(async ({ next }) => {
  const result = await next()
  if (!result.ok && result.error.cause instanceof DomainError) {
    const cause = result.error.cause
    throw new TRPCError({ code: statusToTrpc[cause.status] ?? 'BAD_REQUEST', message: cause.message, cause })
  }
  return result
})

export const router = t.router
export const createCallerFactory = t.createCallerFactory
export const publicProcedure = t.procedure.use(mapDomainErrors)

/** A signed-in, active member of a newsroom, acting in it. */
export const memberProcedure = publicProcedure.use(({ ctx, next, path }) => {
  if (!ctx.member || !ctx.tenant) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'Sign in again: your session has ended.' })
  // Past the policy's grace, only the member's own Security procedures work: setting up a factor first.
  if (ctx.secondFactorDueBy && ctx.secondFactorDueBy.getTime() <= Date.now() && !path.startsWith('security.')) {
    throw new DomainError('second_factor_setup_required', 'Set up two-factor sign-in in Settings → Security first: your newsroom requires it, and its grace period has ended.')
  }
  const actor: Actor & { user: NonNullable<Actor['user']> } = { tenant: ctx.tenant, user: { id: ctx.member.id, role: ctx.member.role } }
  return next({ ctx: { ...ctx, member: ctx.member, tenant: ctx.tenant, actor, session: ctx.session ?? null, clientAddress: ctx.clientAddress ?? 'unknown', secondFactorDueBy: ctx.secondFactorDueBy ?? null } })
})

/**
 * For a procedure whose act is dangerous only sometimes (a key with admin scope): the rule is
 * lib/auth/recent-authentication.ts's, this only hands it the request's session.
 */
export function assertSessionRecentlyAuthenticated(ctx: { session: PortalSessionState | null }): void {
  assertRecentlyAuthenticated(ctx.session)
}

/**
 * A procedure that needs `scope`, declared as a /v1 operation declares its own: the member's
 * role must grant it (lib/auth/permissions.ts, the one vocabulary). The domain function it calls
 * checks the same again, for every other door.
 */
export function scopedProcedure(scope: Scope) {
  return memberProcedure.use(({ ctx, next }) => {
    if (!can(ctx.member, scope)) throw new TRPCError({ code: 'FORBIDDEN', message: refusalFor(scope) })
    return next()
  })
}

/**
 * A dangerous act (GitHub's sudo mode): the scope, then a session that proved itself within the
 * last 10 minutes; otherwise `reauthentication_required`, and the portal asks for the password
 * and retries. Checked before the input is parsed, so nothing is half done.
 */
export function sudoProcedure(scope: Scope) {
  return scopedProcedure(scope).use(({ ctx, next }) => {
    assertRecentlyAuthenticated(ctx.session)
    return next()
  })
}

