import { changeRole, createUser, deactivateUser, listUsers, type UserSummary } from '../../users/manage-users.ts'
import { changeRoleSchema, createUserSchema, userIdSchema } from '../../users/user-schemas.ts'
import { domainInput } from '../domain-input.ts'
import { adminProcedure, router } from '../init.ts'

function toUserView(user: UserSummary) {
  return { ...user, deactivatedAt: user.deactivatedAt?.toISOString() ?? null, createdAt: user.createdAt.toISOString() }
}

export type UserView = ReturnType<typeof toUserView>

export const usersRouter = router({
  list: adminProcedure.query(async ({ ctx }) => (await listUsers(ctx.tenant.id)).map(toUserView)),

  /** A generated password is in this answer only. */
  create: adminProcedure.input(domainInput(createUserSchema)).mutation(async ({ ctx, input }) => {
    const { user, generatedPassword } = await createUser(ctx.actor, input)
    return { user: toUserView(user), generatedPassword }
  }),

  changeRole: adminProcedure.input(domainInput(changeRoleSchema)).mutation(async ({ ctx, input }) => toUserView(await changeRole(ctx.actor, input))),

  deactivate: adminProcedure.input(domainInput(userIdSchema)).mutation(async ({ ctx, input }) => toUserView(await deactivateUser(ctx.actor, input))),
})
