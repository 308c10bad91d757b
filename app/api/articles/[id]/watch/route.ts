import { serveArticleWatch } from '@/lib/articles/watch-article-route'
import type { ApiRequest } from '@/lib/api/api-request'

// The open article page's awareness poll (lib/articles/watch-article-route.ts). The production
// server calls it directly, not through Next (lib/server/app-listener.ts, directPortalRoutes).
export const runtime = 'nodejs'
export const dynamic = 'force-dynamic'

export async function GET(request: ApiRequest, { params }: { params: Promise<{ id: string }> }) {
  return serveArticleWatch(request, (await params).id)
}
