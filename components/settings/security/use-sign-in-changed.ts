'use client'

import { useEffect, useRef } from 'react'
import { useQueryClient } from '@tanstack/react-query'
import { useRouter } from 'next/navigation'
import { useTRPC } from '@/components/trpc-context'
import { signInChanged } from '@/app/(portal)/settings/security/sign-in-changed-action'

/** The member's other tabs of the portal hear of a change to their factors on this channel. */
const channelName = 'newsroom-portal-sign-in'

/** What this tab must forget when the member's factors change: Security's counts, the layout's reminder, the routes. */
function useForgetSignIn(): () => Promise<void> {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const router = useRouter()
  return async () => {
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.security.twoFactor.queryKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.security.passkeys.queryKey() }),
      // The change itself is made and answered by then: a lost follow-up must not be reported as
      // the change failing ("nothing was changed"). Rendering again still takes the reminder away;
      // the gate decides each navigation on the server.
      signInChanged().catch(() => router.refresh()),
    ])
  }
}

/**
 * What every change to the member's own factors must be followed by: Security's sections count
 * the factors again, and the portal's layout and router forget what they knew under the old
 * state (the two-factor reminder, links the gate sent to Security). One place, so a new factor
 * kind cannot forget half of it. The member's other tabs are told too: the portal layout is not
 * rendered again on a client navigation, so a tab left open kept the old reminder (or its
 * absence) on every page until it was reloaded.
 */
export function useSignInChanged(): () => Promise<void> {
  const forget = useForgetSignIn()
  return async () => {
    if (typeof BroadcastChannel !== 'undefined') {
      const channel = new BroadcastChannel(channelName)
      channel.postMessage('changed')
      channel.close()
    }
    await forget()
  }
}

/** In every portal page: forgets, in this tab, what a change to the factors made in another tab made stale. */
export function SignInChangedListener(): null {
  const forget = useForgetSignIn()
  const latest = useRef(forget)
  useEffect(() => {
    latest.current = forget
  })
  useEffect(() => {
    if (typeof BroadcastChannel === 'undefined') return
    const channel = new BroadcastChannel(channelName)
    channel.onmessage = () => void latest.current().catch(() => undefined)
    return () => channel.close()
  }, [])
  return null
}
