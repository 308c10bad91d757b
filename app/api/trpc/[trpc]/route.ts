import { fetchRequestHandler } from '@trpc/server/adapters/fetch'
import { createPortalContext } from '@/lib/trpc/context'
import { appRouter } from '@/lib/trpc/routers/app-router'
import { isPortalRequest } from '@/lib/security/same-origin'

function handler(request: Request) {
  if (request.method !== 'GET' && !isPortalRequest(request)) {
    return Response.json({ error: { message: 'Cross-site request refused.', code: 'FORBIDDEN' } }, { status: 403 })
  }
  return fetchRequestHandler({
    endpoint: '/api/trpc',
    req: request,
    router: appRouter,
    createContext: () => createPortalContext(request),
    onError({ error, path }) {
      if (error.code === 'INTERNAL_SERVER_ERROR') console.error(`[trpc] ${path}`, error.cause ?? error)
    },
  })
}

export { handler as GET, handler as POST }
