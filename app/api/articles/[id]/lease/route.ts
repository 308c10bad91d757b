import { withRouteFailures } from '@/lib/api/failure'
import { serveEditLeaseAsk } from '@/lib/api/portal-lease-route'
import type { ApiRequest } from '@/lib/api/api-request'

// The article page's ask for its edit lease (lib/api/portal-lease-route.ts). The production
// server calls it directly, not through Next (lib/server/app-listener.ts, directPortalRoutes).
export const runtime = 'nodejs'
export const dynamic = 'force-dynamic'

export const POST = withRouteFailures('edit lease', async (request: ApiRequest, { params }: { params: Promise<{ id: string }> }) => {
  return serveEditLeaseAsk(request, (await params).id)
})
