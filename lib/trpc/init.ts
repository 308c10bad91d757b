import { initTRPC, TRPCError } from '@trpc/server'
import { can, refusalFor } from '../auth/permissions.ts'
import type { Scope } from '../tokens/scopes.ts'
import { describeFailure } from '../api/failure.ts'
import { DomainError, ValidationError } from '../errors.ts'
import { createId } from '../ids.ts'
import type { Member } from '../auth/members.ts'
import type { PortalSessionState } from '../auth/portal-sessions.ts'
import { assertRecentlyAuthenticated } from '../auth/recent-authentication.ts'
import { needsRecentAuthentication } from '../auth/recent-authentication-acts.ts'
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
  /** The request's id: an unexpected failure's answer quotes it and the server log files its detail under it. */
  requestId?: string
}

const t = initTRPC.context<PortalContext>().create({
  /**
   * What the browser is told. A domain refusal keeps its words, code and field errors (forms show
   * them beside the fields); anything else is described by the one shared formatter
   * (lib/api/failure.ts): a generic message with a request id, the detail logged under it. The
   * stack never leaves the server, in development either.
   */
  errorFormatter({ shape, error, ctx, path }) {
    const cause = error.cause
    const { stack: _stack, ...data } = shape.data as typeof shape.data & { stack?: string }
    if (error.code === 'INTERNAL_SERVER_ERROR' && !(cause instanceof DomainError)) {
      const requestId = ctx?.requestId ?? createId('req')
      const failure = describeFailure(cause ?? error, requestId, `trpc ${path ?? ''}`)
      return {
        ...shape,
        message: failure.problem.detail,
        data: { ...data, code: failure.status === 503 ? 'SERVICE_UNAVAILABLE' : data.code, httpStatus: failure.status, domainCode: failure.problem.code, fieldErrors: null, requestId },
      }
    }
    return {
      ...shape,
      data: {
        ...data,
        // The domain's own code and field errors, so forms can show them beside the fields.
        domainCode: cause instanceof DomainError ? cause.code : null,
        fieldErrors: cause instanceof ValidationError || (cause instanceof DomainError && 'fieldErrors' in cause) ? (cause.fieldErrors as ValidationError['fieldErrors']) : null,
        requestId: ctx?.requestId ?? null,
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

/** A signed-in, active member of a newsroom, acting in it; not yet asked for recent authentication. */
const signedInProcedure = publicProcedure.use(({ ctx, next, path }) => {
  if (!ctx.member || !ctx.tenant) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'Sign in again: your session has ended.' })
  // Past the policy's grace, only the member's own Security procedures work: setting up a factor first.
  if (ctx.secondFactorDueBy && ctx.secondFactorDueBy.getTime() <= Date.now() && !path.startsWith('security.')) {
    throw new DomainError('second_factor_setup_required', 'Set up two-factor sign-in in Settings → Security first: your newsroom requires it, and its grace period has ended.')
  }
  const actor: Actor & { user: NonNullable<Actor['user']> } = { tenant: ctx.tenant, user: { id: ctx.member.id, role: ctx.member.role } }
  return next({ ctx: { ...ctx, member: ctx.member, tenant: ctx.tenant, actor, session: ctx.session ?? null, clientAddress: ctx.clientAddress ?? 'unknown', secondFactorDueBy: ctx.secondFactorDueBy ?? null } })
})

/**
 * GitHub's sudo mode for every mutation, decided by the declared list beside `can`
 * (lib/auth/recent-authentication-acts.ts), not by each procedure: a session that proved itself
 * more than 10 minutes ago gets `reauthentication_required`, and the portal's "Confirm it's you"
 * dialog (components/reauthentication.tsx) asks and sends the mutation again. Runs after the
 * role check and before the input is parsed or anything is done, so nothing is half done.
 */
async function askForRecentAuthentication(opts: { ctx: { actor: Actor; session: PortalSessionState | null }; path: string; type: string; getRawInput: () => Promise<unknown> }): Promise<void> {
  if (opts.type !== 'mutation') return
  const input = await opts.getRawInput().catch(() => undefined)
  if (await needsRecentAuthentication(opts.path, input, opts.ctx.actor)) assertRecentlyAuthenticated(opts.ctx.session)
}

/** A signed-in, active member of a newsroom, acting in it; mutations as recent-authentication-acts.ts declares. */
export const memberProcedure = signedInProcedure.use(async (opts) => {
  await askForRecentAuthentication(opts)
  return opts.next()
})

/**
 * A procedure that needs `scope`, declared as a /v1 operation declares its own: the member's
 * role must grant it (lib/auth/permissions.ts, the one vocabulary), then, for a mutation, the
 * recent authentication the declared list asks for. The domain function it calls checks the
 * scope again, for every other door.
 */
export function scopedProcedure(scope: Scope) {
  return signedInProcedure.use(async (opts) => {
    if (!can(opts.ctx.member, scope)) throw new TRPCError({ code: 'FORBIDDEN', message: refusalFor(scope) })
    await askForRecentAuthentication(opts)
    return opts.next()
  })
}
