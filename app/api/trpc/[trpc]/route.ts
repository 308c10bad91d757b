import { fetchRequestHandler } from '@trpc/server/adapters/fetch'
import { createPortalContext } from '@/lib/trpc/context'
import { appRouter } from '@/lib/trpc/routers/app-router'

function handler(request: Request) {
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
