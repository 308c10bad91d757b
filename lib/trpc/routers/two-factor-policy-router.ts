import { getTwoFactorPolicy, saveTwoFactorPolicy, saveTwoFactorPolicySchema } from '../../auth/two-factor-policy.ts'
import { domainInput } from '../domain-input.ts'
import { router, scopedProcedure } from '../init.ts'

/** Settings → Two-factor: who must have a second factor. Saving asks for sudo mode (the domain checks it). */
export const twoFactorPolicyRouter = router({
  get: scopedProcedure('admin').query(async ({ ctx }) => getTwoFactorPolicy(ctx.actor)),
  save: scopedProcedure('admin')
    .input(domainInput(saveTwoFactorPolicySchema))
    .mutation(async ({ ctx, input }) => saveTwoFactorPolicy(ctx.actor, ctx.session, input)),
})
