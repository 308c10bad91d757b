import { z } from 'zod'
import { articleLockSchema } from './article-schemas.ts'

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
