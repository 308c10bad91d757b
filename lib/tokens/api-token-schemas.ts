import { z } from 'zod'
import { parseRange } from '../security/cidr.ts'
import { isScope, type Scope } from './scopes.ts'

// Shared by the portal's form, the tRPC procedure and the domain, so all three accept and
// refuse the same key with the same words. Nothing here may need Node: the form imports it.

/** Keys older than this are flagged: the spec recommends rotating every 90 days. */
export const rotationRecommendedAfterDays = 90

export const maxApiTokenNameLength = 100

export const maxAllowedAddresses = 50

/** The lifetimes the portal offers; a date can be chosen instead. */
export const expiryPresetDays = [30, 90, 365] as const

const dayMs = 24 * 60 * 60 * 1000

const apiTokenNameSchema = z
  .string()
  .trim()
  .min(1, 'Give the key a name, such as the integration that will use it.')
  .max(maxApiTokenNameLength, `A name has at most ${maxApiTokenNameLength} characters.`)

export const expiryChoices = ['never', '30', '90', '365', 'date'] as const
export type ExpiryChoice = { expiry?: (typeof expiryChoices)[number]; expiryDate?: string }

/**
 * When a key chosen so stops working: never (the default, as the contract has it), a preset
 * number of days from now, or the end (UTC) of a chosen date, today or later and within five
 * years. Or what is wrong with the date.
 */
export function expiryOf(choice: ExpiryChoice, now = Date.now()): Date | null | { error: string } {
  const { expiry = 'never', expiryDate = '' } = choice
  if (expiry === 'never') return null
  if (expiry !== 'date') return new Date(now + Number(expiry) * dayMs)
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(expiryDate)
  const day = match ? new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]))) : null
  if (!day || Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== expiryDate) return { error: 'Choose the last day the key works, as YYYY-MM-DD.' }
  const expiresAt = new Date(day.getTime() + dayMs)
  if (expiresAt.getTime() <= now) return { error: 'Choose today or a later date.' }
  if (expiresAt.getTime() > now + 5 * 366 * dayMs) return { error: 'Choose a date within five years; a key that should never expire can say so.' }
  return expiresAt
}

/**
 * An allowlist as the form sends it (one range per line, or commas) or as a list: each entry an
 * IPv4 or IPv6 address or CIDR range. Empty admits every address, as keys always have.
 */
export const allowedAddressesSchema = z
  .union([z.string(), z.array(z.string())])
  .default([])
  .transform((value) => (Array.isArray(value) ? value : value.split(/[\s,]+/)).map((entry) => entry.trim()).filter(Boolean))
  .superRefine((entries, ctx) => {
    if (entries.length > maxAllowedAddresses) ctx.addIssue({ code: 'custom', message: `An allowlist has at most ${maxAllowedAddresses} entries.` })
    for (const entry of entries) {
      const range = parseRange(entry)
      if ('error' in range) ctx.addIssue({ code: 'custom', message: range.error })
    }
  })
  .transform((entries) => [...new Set(entries)])

export const createApiTokenSchema = z.object({
  name: apiTokenNameSchema,
  scopes: z
    .array(z.string())
    .min(1, 'Choose at least one scope.')
    .superRefine((scopes, ctx) => {
      const unknown = scopes.filter((scope) => !isScope(scope))
      if (unknown.length > 0) ctx.addIssue({ code: 'custom', message: `Unknown scopes: ${unknown.join(', ')}.` })
    })
    // Checked just above; duplicates are dropped.
    .transform((scopes) => [...new Set(scopes)] as Scope[]),
  expiry: z.enum(expiryChoices, 'Choose when the key expires: never, 30, 90 or 365 days, or a date.').default('never'),
  expiryDate: z.string().trim().optional(),
  allowedAddresses: allowedAddressesSchema,
}).superRefine((value, ctx) => {
  const expiresAt = expiryOf(value)
  if (expiresAt && 'error' in expiresAt) ctx.addIssue({ code: 'custom', path: ['expiryDate'], message: expiresAt.error })
})

export const renameApiTokenSchema = z.object({ id: z.string().min(1), name: apiTokenNameSchema })

export const setApiTokenAllowlistSchema = z.object({ id: z.string().min(1), allowedAddresses: allowedAddressesSchema })

/** How long a rolled key's old secret keeps working beside the new one. */
export const rollOverlaps = { none: 0, '1h': 60 * 60 * 1000, '24h': 24 * 60 * 60 * 1000, '7d': 7 * 24 * 60 * 60 * 1000 } as const
export type RollOverlap = keyof typeof rollOverlaps

export const rollApiTokenSchema = z.object({
  id: z.string().min(1),
  overlap: z.enum(Object.keys(rollOverlaps) as [RollOverlap, ...RollOverlap[]], 'Choose how long the old secret keeps working: none, 1h, 24h or 7d.'),
})

export type CreateApiTokenInput = z.input<typeof createApiTokenSchema>
/** What the domain takes: a name, scopes and bounds the adapter has parsed with createApiTokenSchema. */
export type NewApiToken = Pick<z.output<typeof createApiTokenSchema>, 'name' | 'scopes'> &
  Partial<Omit<z.output<typeof createApiTokenSchema>, 'name' | 'scopes'>> & {
    /** An exact expiry, for the system (tests, fixtures); people choose one through `expiry`. */
    expiresAt?: Date | null
  }
