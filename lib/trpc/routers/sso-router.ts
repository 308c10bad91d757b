import { getSsoConnection, saveSsoConnection, saveSsoConnectionSchema } from '../../auth/sso-connection.ts'
import { domainInput } from '../domain-input.ts'
import { router, scopedProcedure } from '../init.ts'

/**
 * Settings → Single sign-on. Saving is a dangerous act: saveSsoConnection itself asks for a
 * recent sign-in (sudo mode), so the portal's dialog asks for the password and retries.
 */
export const ssoRouter = router({
  get: scopedProcedure('admin').query(async ({ ctx }) => getSsoConnection(ctx.actor)),
  save: scopedProcedure('admin')
    .input(domainInput(saveSsoConnectionSchema))
    .mutation(async ({ ctx, input }) => saveSsoConnection(ctx.actor, ctx.session, input)),
})
