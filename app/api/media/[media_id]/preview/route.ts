import { withRouteFailures } from '@/lib/api/failure'
import { serveMediaPreview } from '@/lib/api/portal-media-routes'
import type { ApiRequest } from '@/lib/api/api-request'

// The portal's own view of an image (lib/api/portal-media-routes.ts): embargoed ones too.
export const runtime = 'nodejs'
export const dynamic = 'force-dynamic'

export const GET = withRouteFailures('media preview', async (request: ApiRequest, { params }: { params: Promise<{ media_id: string }> }) => {
  return serveMediaPreview(request, (await params).media_id)
})
