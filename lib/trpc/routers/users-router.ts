import { membersWithSecondFactors } from '../../auth/second-factors.ts'
import { resetMemberSecondFactors } from '../../auth/two-factor.ts'
import { changeRole, createUser, deactivateUser, listUsers, type UserSummary } from '../../users/manage-users.ts'
import { changeRoleSchema, createUserSchema, userIdSchema } from '../../users/user-schemas.ts'
import { domainInput } from '../domain-input.ts'
import { router, scopedProcedure } from '../init.ts'

const procedure = scopedProcedure('admin')

function toUserView(user: UserSummary) {
  return { ...user, deactivatedAt: user.deactivatedAt?.toISOString() ?? null, createdAt: user.createdAt.toISOString() }
}

export type UserView = ReturnType<typeof toUserView>

export const usersRouter = router({
  list: procedure.query(async ({ ctx }) => {
    const [users, withFactors] = await Promise.all([listUsers(ctx.actor), membersWithSecondFactors(ctx.actor.tenant.id)])
    return users.map((user) => ({ ...toUserView(user), hasSecondFactor: withFactors.has(user.id) }))
  }),

  /** A generated password is in this answer only. */
  create: procedure.input(domainInput(createUserSchema)).mutation(async ({ ctx, input }) => {
    const { user, generatedPassword } = await createUser(ctx.actor, input)
    return { user: toUserView(user), generatedPassword }
  }),

  changeRole: procedure.input(domainInput(changeRoleSchema)).mutation(async ({ ctx, input }) => toUserView(await changeRole(ctx.actor, input))),

  /** Removes the member's second factors and ends their sessions; audited as user.factors_reset. */
  resetSecondFactors: procedure.input(domainInput(userIdSchema)).mutation(async ({ ctx, input }) => resetMemberSecondFactors(ctx.actor, ctx.session, input.userId)),

  deactivate: procedure.input(domainInput(userIdSchema)).mutation(async ({ ctx, input }) => toUserView(await deactivateUser(ctx.actor, input))),
})
