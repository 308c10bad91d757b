import { z } from 'zod'
import { changeOwnPassword } from '../../auth/change-password.ts'
import { endOtherPortalSessions, endPortalSession, listPortalSessions, type PortalSessionSummary } from '../../auth/portal-sessions.ts'
import { reauthenticateWithPassword, reauthenticationWindowMs } from '../../auth/recent-authentication.ts'
import { changePasswordSchema, confirmTotpSchema, passkeyAssertionSchema, reauthenticateSchema, registerPasskeySchema, renamePasskeySchema } from '../../auth/security-schemas.ts'
import {
  listPasskeys,
  passkeyReauthenticationOptions,
  passkeyRegistrationOptions,
  reauthenticateWithPasskey,
  registerPasskey,
  removePasskey,
  renamePasskey,
  type PasskeySummary,
} from '../../auth/passkeys.ts'
import { secondFactorsOf } from '../../auth/second-factors.ts'
import { confirmTotpEnrolment, reauthenticateWithTotp, regenerateRecoveryCodes, removeTotp, startTotpEnrolment } from '../../auth/two-factor.ts'
import { DomainError } from '../../errors.ts'
import { describeUserAgent } from '../../auth/user-agent.ts'
import { domainInput } from '../domain-input.ts'
import { memberProcedure, router } from '../init.ts'

function toSessionView(session: PortalSessionSummary) {
  return {
    id: session.id,
    device: describeUserAgent(session.userAgent),
    userAgent: session.userAgent,
    clientAddress: session.clientAddress,
    createdAt: session.createdAt.toISOString(),
    lastSeenAt: session.lastSeenAt.toISOString(),
    current: session.current,
  }
}

export type PortalSessionView = ReturnType<typeof toSessionView>

function toPasskeyView(passkey: PasskeySummary) {
  return {
    id: passkey.id,
    name: passkey.name,
    synced: passkey.deviceType === 'multiDevice',
    backedUp: passkey.backedUp,
    createdAt: passkey.createdAt.toISOString(),
    lastUsedAt: passkey.lastUsedAt?.toISOString() ?? null,
  }
}

export type PasskeyView = ReturnType<typeof toPasskeyView>

const validFor = (at: Date) => ({ reauthenticatedAt: at.toISOString(), validUntil: new Date(at.getTime() + reauthenticationWindowMs).toISOString() })

/** The member's own sign-in: every member has it, whatever their role. */
export const securityRouter = router({
  sessions: memberProcedure.query(async ({ ctx }) => (await listPortalSessions(ctx.actor, ctx.session?.id ?? null)).map(toSessionView)),

  endSession: memberProcedure
    .input(domainInput(z.object({ sessionId: z.string().min(1) })))
    .mutation(async ({ ctx, input }) => {
      await endPortalSession(ctx.actor, input.sessionId, ctx.session)
      return { sessionId: input.sessionId, endedCurrent: input.sessionId === ctx.session?.id }
    }),

  endOtherSessions: memberProcedure.mutation(async ({ ctx }) => ({ ended: await endOtherPortalSessions(ctx.actor, requireSession(ctx.session).id) })),

  /** The sudo dialog's check, the password or a code from the authenticator app: the dangerous act is retried after it. */
  reauthenticate: memberProcedure.input(domainInput(reauthenticateSchema)).mutation(async ({ ctx, input }) => {
    const session = requireSession(ctx.session)
    const at = input.code
      ? await reauthenticateWithTotp(ctx.actor, session, input.code, ctx.clientAddress)
      : await reauthenticateWithPassword(ctx.actor, session, input.password ?? '', ctx.clientAddress)
    return validFor(at)
  }),

  /** The sudo dialog's other way: a passkey of the member's own. Step one, the challenge. */
  passkeyReauthenticationOptions: memberProcedure.mutation(async ({ ctx }) => passkeyReauthenticationOptions(ctx.actor)),

  reauthenticateWithPasskey: memberProcedure.input(domainInput(passkeyAssertionSchema)).mutation(async ({ ctx, input }) =>
    validFor(await reauthenticateWithPasskey(ctx.actor, requireSession(ctx.session), input.response)),
  ),

  passkeys: memberProcedure.query(async ({ ctx }) => (await listPasskeys(ctx.actor)).map(toPasskeyView)),

  /** Adding a passkey is a dangerous act (it becomes a way in): sudo, checked in the domain. */
  passkeyRegistrationOptions: memberProcedure.mutation(async ({ ctx }) => passkeyRegistrationOptions(ctx.actor, ctx.session)),

  /** The member's first factor brings ten recovery codes, in this answer only. */
  registerPasskey: memberProcedure.input(domainInput(registerPasskeySchema)).mutation(async ({ ctx, input }) => {
    const added = await registerPasskey(ctx.actor, ctx.session, input)
    return { ...toPasskeyView(added), recoveryCodes: added.recoveryCodes }
  }),

  renamePasskey: memberProcedure.input(domainInput(renamePasskeySchema)).mutation(async ({ ctx, input }) =>
    toPasskeyView(await renamePasskey(ctx.actor, ctx.session, input.passkeyId, input.name)),
  ),

  removePasskey: memberProcedure.input(domainInput(z.object({ passkeyId: z.string().min(1).max(64) }))).mutation(async ({ ctx, input }) => {
    await removePasskey(ctx.actor, ctx.session, input.passkeyId)
    return { passkeyId: input.passkeyId }
  }),

  /** The member's own second factors, and whether (and by when) the newsroom requires one of them. */
  twoFactor: memberProcedure.query(async ({ ctx }) => ({
    ...(await secondFactorsOf(ctx.actor.user.id)),
    dueBy: ctx.secondFactorDueBy?.toISOString() ?? null,
    // Decided here, on the server's clock, so no reminder names a deadline already past.
    overdue: ctx.secondFactorDueBy !== null && ctx.secondFactorDueBy !== undefined && ctx.secondFactorDueBy.getTime() <= Date.now(),
  })),

  startTotp: memberProcedure.mutation(async ({ ctx }) => startTotpEnrolment(ctx.actor, ctx.session, ctx.member.email)),

  /** The recovery codes are in this answer only. */
  confirmTotp: memberProcedure.input(domainInput(confirmTotpSchema)).mutation(async ({ ctx, input }) => confirmTotpEnrolment(ctx.actor, ctx.session, input.code)),

  removeTotp: memberProcedure.mutation(async ({ ctx }) => {
    await removeTotp(ctx.actor, ctx.session)
    return { removed: true }
  }),

  /** The new recovery codes are in this answer only. */
  regenerateRecoveryCodes: memberProcedure.mutation(async ({ ctx }) => regenerateRecoveryCodes(ctx.actor, ctx.session)),

  changePassword: memberProcedure.input(domainInput(changePasswordSchema)).mutation(async ({ ctx, input }) =>
    changeOwnPassword(ctx.actor, requireSession(ctx.session), input, ctx.clientAddress),
  ),
})

function requireSession<T>(session: T | null): T {
  if (!session) throw new DomainError('forbidden', 'Sign in again: this request carries no session.')
  return session
}
