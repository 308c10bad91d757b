import { withRouteFailures } from '@/lib/api/failure'
import { serveMediaUpload } from '@/lib/api/portal-media-routes'
import type { ApiRequest } from '@/lib/api/api-request'

// The Media page's uploads (lib/api/portal-media-routes.ts): one file per request, streamed.
export const runtime = 'nodejs'
export const dynamic = 'force-dynamic'

export const POST = withRouteFailures('media upload', (request: ApiRequest) => serveMediaUpload(request))
