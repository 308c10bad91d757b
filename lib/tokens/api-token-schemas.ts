import { z } from 'zod'
import { isScope, type Scope } from './scopes.ts'

// Shared by the portal's form, the tRPC procedure and the domain, so all three accept and
// refuse the same key with the same words. Nothing here may need Node: the form imports it.

/** Keys older than this are flagged: the spec recommends rotating every 90 days. */
export const rotationRecommendedAfterDays = 90

export const maxApiTokenNameLength = 100

export const createApiTokenSchema = z.object({
  name: z
    .string()
    .trim()
    .min(1, 'Give the key a name, such as the integration that will use it.')
    .max(maxApiTokenNameLength, `A name has at most ${maxApiTokenNameLength} characters.`),
  scopes: z
    .array(z.string())
    .min(1, 'Choose at least one scope.')
    .superRefine((scopes, ctx) => {
      const unknown = scopes.filter((scope) => !isScope(scope))
      if (unknown.length > 0) ctx.addIssue({ code: 'custom', message: `Unknown scopes: ${unknown.join(', ')}.` })
    })
    // Checked just above; duplicates are dropped.
    .transform((scopes) => [...new Set(scopes)] as Scope[]),
})

export type CreateApiTokenInput = z.input<typeof createApiTokenSchema>
/** What the domain takes: a name and scopes the adapter has parsed with createApiTokenSchema. */
export type NewApiToken = z.output<typeof createApiTokenSchema>
