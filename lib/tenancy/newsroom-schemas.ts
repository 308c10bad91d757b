import { z } from 'zod'
import { createUserSchema } from '../users/user-schemas.ts'

// What a new newsroom needs, shared by `npm run newsroom -- create` and any later door (an
// operator's portal), so both say the same thing about a field.

export const newsroomSlugSchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/, 'A slug is 1 to 63 lower-case letters, digits and hyphens, starting and ending with a letter or digit, such as daily-planet.')

export const createNewsroomSchema = z.object({
  slug: newsroomSlugSchema,
  name: z.string().trim().min(1, 'Enter the newsroom’s name.').max(100, 'A newsroom’s name has at most 100 characters.'),
  publicSiteUrl: z
    .string()
    .trim()
    .pipe(z.url({ protocol: /^https?$/, error: 'Enter the public site’s address, such as https://dailyplanet.example.' })),
  plan: z.enum(['standard', 'enterprise'], { error: 'Choose a plan: standard or enterprise.' }).default('standard'),
  // The first admin: the same rules as any member the portal adds.
  adminEmail: createUserSchema.shape.email,
  adminName: createUserSchema.shape.name,
})

export type CreateNewsroomInput = z.input<typeof createNewsroomSchema>
export type NewNewsroom = z.output<typeof createNewsroomSchema>
