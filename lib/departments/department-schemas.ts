import { z } from 'zod'

export const departmentNameSchema = z
  .string()
  .trim()
  .min(1, 'Enter a department name.')
  .max(80, 'A department name has at most 80 characters.')

export const addDepartmentSchema = z.object({ name: departmentNameSchema })
export const renameDepartmentSchema = z.object({ departmentId: z.string().min(1), name: departmentNameSchema })
export const departmentIdSchema = z.object({ departmentId: z.string().min(1) })

/** What /v1/departments answers: the ids that articles' `department_id` and webhooks' `department_ids` take. */
export const departmentRecordSchema = z
  .object({
    department_id: z.string().meta({ description: 'The id articles (`department_id`, the `department_id` filter) and webhook filters (`department_ids`) take.', example: 'dep_0mhx2k1s9q3v8w4t6y1z2a3b4c' }),
    name: z.string().meta({ description: 'As the newsroom names it (Settings → Departments); renaming keeps the id.', example: 'Sport' }),
    article_count: z.number().int().meta({ description: 'How many articles are filed under it, any status.', example: 42 }),
    created_at: z.string().meta({ description: 'When it was added (ISO 8601, UTC).', example: '2026-11-01T08:00:00.000Z' }),
  })
  .meta({ id: 'Department' })

export const departmentListSchema = z.object({ items: z.array(departmentRecordSchema) }).meta({ id: 'DepartmentList' })

/** No parameters: a newsroom has a few departments, all on one page; anything else sent is named. */
export const listDepartmentsQuerySchema = z.strictObject({})

export type DepartmentRecord = z.infer<typeof departmentRecordSchema>
