import type { Prisma } from '../db/generated/client.ts'
import type { Plan, Role } from '../db/generated/enums.ts'

export type ActingTenant = { id: string; slug: string; name: string; plan: Plan; publicSiteUrl: string }

/** The tenant columns of an ActingTenant: one list for every query that reads one. */
export const actingTenantSelect = {
  id: true,
  slug: true,
  name: true,
  plan: true,
  publicSiteUrl: true,
} as const satisfies Prisma.TenantSelect

/**
 * Who is acting, in which newsroom: a person in the portal, the owner of an API token,
 * or the system itself (user null) for scheduled work.
 */
export type Actor = {
  tenant: ActingTenant
  user: { id: string; role: Role } | null
}
