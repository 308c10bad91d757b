import { withRouteFailures } from '@/lib/api/failure'
import { serveArticleWatch } from '@/lib/api/portal-watch-route'
import type { ApiRequest } from '@/lib/api/api-request'

// The open article page's awareness poll (lib/api/portal-watch-route.ts). The production
// server calls it directly, not through Next (lib/server/app-listener.ts, directPortalRoutes).
export const runtime = 'nodejs'
export const dynamic = 'force-dynamic'

export const GET = withRouteFailures('article watch', async (request: ApiRequest, { params }: { params: Promise<{ id: string }> }) => {
  return serveArticleWatch(request, (await params).id)
})
