import type { Role } from '../../lib/db/generated/enums.ts'
import { createCallerFactory, type PortalContext } from '../../lib/trpc/init.ts'
import { appRouter } from '../../lib/trpc/routers/app-router.ts'
import type { TestTenant } from './fixtures.ts'

const createCaller = createCallerFactory(appRouter)

/** The portal's tRPC procedures as a member of `newsroom` in `role` calls them (signed in, no HTTP). */
export function portalCaller(newsroom: TestTenant, role: Role) {
  const user = newsroom.users[role]
  const context: PortalContext = {
    member: { id: user.id, email: user.email, name: `${newsroom.tenant.slug} ${role}`, role, tenantId: newsroom.tenant.id, tenantName: newsroom.tenant.name },
    tenant: newsroom.actor(role).tenant,
  }
  return createCaller(context)
}
