'use client'

import { createTRPCContext } from '@trpc/tanstack-react-query'
import type { AppRouter } from '@/lib/trpc/routers/app-router'

// The portal's tRPC hooks, in a module of their own: the provider (trpc-provider.tsx) renders the
// re-authentication dialog, and the dialog (reauthentication.tsx) calls procedures, so both
// import these from here rather than from each other.
export const { TRPCProvider, useTRPC } = createTRPCContext<AppRouter>()
