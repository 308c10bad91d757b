import { z } from 'zod'
import { minPasswordLength } from '../users/user-schemas.ts'

// Shared by the Security page's forms and the tRPC procedures, so both refuse with the same words.

/** The sudo dialog: the password, or (for a member with an authenticator app) a code from it. */
export const reauthenticateSchema = z
  .object({
    password: z.string().max(200).optional(),
    code: z.string().trim().regex(/^\d{3} ?\d{3}$/, 'Enter the 6 digits your app shows.').optional(),
  })
  .refine((value) => !!value.password || !!value.code, { path: ['password'], message: 'Enter your password.' })

export const confirmTotpSchema = z.object({ code: z.string().trim().regex(/^\d{3} ?\d{3}$/, 'Enter the 6 digits your app shows.') })

export const changePasswordSchema = z
  .object({
    currentPassword: z.string().min(1, 'Enter your current password.').max(200),
    newPassword: z
      .string()
      .min(minPasswordLength, `Choose a password of at least ${minPasswordLength} characters.`)
      .max(200, 'A password has at most 200 characters.'),
    confirmPassword: z.string(),
  })
  .refine((value) => value.newPassword === value.confirmPassword, { path: ['confirmPassword'], message: 'The two new passwords differ.' })

export type ChangePasswordInput = z.input<typeof changePasswordSchema>
