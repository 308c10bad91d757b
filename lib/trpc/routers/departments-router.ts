import { addDepartmentSchema, departmentIdSchema, renameDepartmentSchema } from '../../departments/department-schemas.ts'
import { addDepartment, listDepartments, removeDepartment, renameDepartment, type DepartmentSummary } from '../../departments/manage-departments.ts'
import { domainInput } from '../domain-input.ts'
import { router, scopedProcedure } from '../init.ts'

const procedure = scopedProcedure('admin')

function toDepartmentView(department: DepartmentSummary) {
  return { ...department, createdAt: department.createdAt.toISOString() }
}

export type DepartmentView = ReturnType<typeof toDepartmentView>

export const departmentsRouter = router({
  list: procedure.query(async ({ ctx }) => (await listDepartments(ctx.actor)).map(toDepartmentView)),
  add: procedure.input(domainInput(addDepartmentSchema)).mutation(async ({ ctx, input }) => toDepartmentView(await addDepartment(ctx.actor, input))),
  rename: procedure
    .input(domainInput(renameDepartmentSchema))
    .mutation(async ({ ctx, input }) => toDepartmentView(await renameDepartment(ctx.actor, input))),
  remove: procedure.input(domainInput(departmentIdSchema)).mutation(async ({ ctx, input }) => {
    await removeDepartment(ctx.actor, input)
    return { departmentId: input.departmentId }
  }),
})
