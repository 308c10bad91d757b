'use client'

import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { createTRPCClient, httpBatchLink } from '@trpc/client'
import { createTRPCContext } from '@trpc/tanstack-react-query'
import { useState, type ReactNode } from 'react'
import type { AppRouter } from '@/lib/trpc/routers/app-router'
import { portalRequestHeader } from '@/lib/security/same-origin'

export const { TRPCProvider, useTRPC } = createTRPCContext<AppRouter>()

export function PortalTrpcProvider({ children }: { children: ReactNode }) {
  const [queryClient] = useState(() => new QueryClient({ defaultOptions: { queries: { staleTime: 5_000, retry: 1 } } }))
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({
      links: [
        httpBatchLink({
          url: '/api/trpc',
          // A custom header a cross-site form cannot send: with SameSite cookies, the portal's CSRF guard.
          headers: () => ({ [portalRequestHeader]: '1' }),
        }),
      ],
    }),
  )
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  )
}
