import { fetchRequestHandler } from '@trpc/server/adapters/fetch'
import { withRouteFailures } from '@/lib/api/failure'
import { createPortalContext } from '@/lib/trpc/context'
import { appRouter } from '@/lib/trpc/routers/app-router'
import { isPortalRequest } from '@/lib/security/same-origin'

// An unexpected failure is logged, with its request id, by the shared formatter
// (lib/api/failure.ts) that the router's errorFormatter calls; the answer carries only the id.
const handler = withRouteFailures('trpc', async (request: Request) => {
  if (request.method !== 'GET' && !isPortalRequest(request)) {
    return Response.json({ error: { message: 'Cross-site request refused.', code: 'FORBIDDEN' } }, { status: 403 })
  }
  return fetchRequestHandler({
    endpoint: '/api/trpc',
    req: request,
    router: appRouter,
    createContext: () => createPortalContext(request),
  })
})

export { handler as GET, handler as POST }
