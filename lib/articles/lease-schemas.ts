import { z } from 'zod'
import { articleLockSchema } from './article-schemas.ts'

/**
 * The portal page's editing session, a random id it makes when it opens: the lease keeps one
 * claim per session, so one person's two tabs hold it together (edit-lease.ts).
 */
export const leaseSessionSchema = z.string().regex(/^[A-Za-z0-9_-]{8,64}$/, { error: 'session must be 8 to 64 letters, digits, - or _.' })

export const claimLeaseQuerySchema = z
  .strictObject({
    take_over: z
      .enum(['true', 'false'], { error: 'take_over must be true or false.' })
      .optional()
      .transform((value) => value === 'true')
      .meta({ description: "`true` takes the lease from whoever holds it now (recorded in the article's notes and the audit log; their next renewal or write is refused)." }),
  })
  .meta({ id: 'ClaimLeaseQuery' })

export const leaseClaimSchema = z
  .object({
    lock: articleLockSchema,
    took_over_from: z
      .object({ id: z.string(), name: z.string() })
      .nullable()
      .meta({ description: 'Whose live lease this claim took over, or null.' }),
  })
  .meta({ id: 'LeaseClaim' })
