'use client'

import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { createTRPCClient, httpBatchLink } from '@trpc/client'
import { useState, type ReactNode } from 'react'
import type { AppRouter } from '@/lib/trpc/routers/app-router'
import { portalRequestHeader } from '@/lib/security/same-origin'
import { ReauthenticationDialog, reauthenticationLink } from '@/components/reauthentication'
import { TRPCProvider } from '@/components/trpc-context'

export function PortalTrpcProvider({ children }: { children: ReactNode }) {
  const [queryClient] = useState(() => new QueryClient({ defaultOptions: { queries: { staleTime: 5_000, retry: 1 } } }))
  // The re-authentication dialog's open request: the link waits on it, the dialog settles it.
  const [reauthentication, setReauthentication] = useState<{ resolve: (confirmed: boolean) => void } | null>(null)
  // The dialog's pending answer, shared by refusals that arrive together (not state: nothing renders from it).
  const [waiting] = useState<{ current: Promise<boolean> | null }>(() => ({ current: null }))
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({
      links: [
        reauthenticationLink(() => {
          // Several refused mutations at once share one dialog.
          waiting.current ??= new Promise<boolean>((resolve) =>
            setReauthentication({
              resolve: (confirmed) => {
                waiting.current = null
                setReauthentication(null)
                resolve(confirmed)
              },
            }),
          )
          return waiting.current
        }),
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
        <ReauthenticationDialog request={reauthentication} />
      </TRPCProvider>
    </QueryClientProvider>
  )
}
