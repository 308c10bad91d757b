import { z } from 'zod'

// Shared by the portal's forms and the domain, so both say the same thing about a field.

export const roles = ['admin', 'editor', 'writer'] as const

export const roleSchema = z.enum(roles, { error: 'Choose a role: admin, editor or writer.' })

export const minPasswordLength = 12

export const createUserSchema = z.object({
  email: z
    .string()
    .trim()
    .toLowerCase()
    .max(254, 'An e-mail address has at most 254 characters.')
    .pipe(z.email('Enter an e-mail address such as lois@example.com.')),
  name: z.string().trim().min(1, 'Enter the person’s name.').max(100, 'A name has at most 100 characters.'),
  role: roleSchema,
  // Empty: the service generates one and shows it once.
  password: z
    .string()
    .max(200, 'A password has at most 200 characters.')
    .refine((value) => value.length === 0 || value.length >= minPasswordLength, {
      message: `Choose a password of at least ${minPasswordLength} characters, or leave it empty to generate one.`,
    })
    .optional(),
})

export type CreateUserInput = z.input<typeof createUserSchema>
/** What the domain takes: input the adapter (tRPC, a script) has parsed with createUserSchema. */
export type NewUser = z.output<typeof createUserSchema>

export const changeRoleSchema = z.object({ userId: z.string().min(1), role: roleSchema })
export type ChangeRoleInput = z.input<typeof changeRoleSchema>
export type RoleChange = z.output<typeof changeRoleSchema>

export const userIdSchema = z.object({ userId: z.string().min(1) })
