import { z } from 'zod'

export const departmentNameSchema = z
  .string()
  .trim()
  .min(1, 'Enter a department name.')
  .max(80, 'A department name has at most 80 characters.')

export const addDepartmentSchema = z.object({ name: departmentNameSchema })
export const renameDepartmentSchema = z.object({ departmentId: z.string().min(1), name: departmentNameSchema })
export const departmentIdSchema = z.object({ departmentId: z.string().min(1) })
