import type { AuthenticationExtensionsClientOutputs } from '@simplewebauthn/server'
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

// A browser's WebAuthn answer as @simplewebauthn/browser serialises it (base64url strings).
// Only its shape is checked here; what it proves is checked by lib/auth/passkeys.ts.
const base64url = z.string().max(16_384).regex(/^[A-Za-z0-9_-]*$/, 'Not base64url.')
const credentialBase = {
  id: base64url.min(1),
  rawId: base64url.min(1),
  type: z.literal('public-key'),
  clientExtensionResults: z.custom<AuthenticationExtensionsClientOutputs>((value) => typeof value === 'object' && value !== null && !Array.isArray(value), 'An object.').default({}),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
}

export const registrationResponseSchema = z.object({
  ...credentialBase,
  response: z.object({
    clientDataJSON: base64url.min(1),
    attestationObject: base64url.min(1),
    authenticatorData: base64url.optional(),
    transports: z.array(z.string().max(32)).max(10).optional(),
    publicKeyAlgorithm: z.number().int().optional(),
    publicKey: base64url.optional(),
  }),
})

export const authenticationResponseSchema = z.object({
  ...credentialBase,
  response: z.object({
    clientDataJSON: base64url.min(1),
    authenticatorData: base64url.min(1),
    signature: base64url.min(1),
    userHandle: base64url.optional(),
  }),
})

export const passkeyNameSchema = z.string().trim().min(1, 'Name the passkey, e.g. "Work laptop".').max(80, 'A passkey name has at most 80 characters.')

export const registerPasskeySchema = z.object({ name: passkeyNameSchema, response: registrationResponseSchema })
export const renamePasskeySchema = z.object({ passkeyId: z.string().min(1).max(64), name: passkeyNameSchema })
export const passkeyAssertionSchema = z.object({ response: authenticationResponseSchema })

export type RegistrationResponseInput = z.infer<typeof registrationResponseSchema>
export type AuthenticationResponseInput = z.infer<typeof authenticationResponseSchema>
