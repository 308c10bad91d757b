'use client'

import { useEffect, useRef } from 'react'
import { useQueryClient } from '@tanstack/react-query'
import { usePathname, useRouter } from 'next/navigation'
import { useTRPC } from '@/components/trpc-context'
import { signInChanged } from '@/app/(portal)/settings/security/sign-in-changed-action'
import { secondFactorSetupPath } from '@/lib/auth/portal-paths'

/** The member's other tabs of the portal hear of a change to their factors on this channel. */
const channelName = 'newsroom-portal-sign-in'

/**
 * Whether, after the change, the gate sends the member to Security (unknown counts as yes); and
 * which tab made it, as a channel also delivers to the sender's own tab, whose listener must not
 * send a second Server Action after the first.
 */
type SignInChangedMessage = { gated: boolean; from: string }
const thisTab = Math.random().toString(36).slice(2)

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
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const forget = useForgetSignIn()
  return async () => {
    await forget()
    if (typeof BroadcastChannel === 'undefined') return
    const state = queryClient.getQueryData(trpc.security.twoFactor.queryKey())
    const message: SignInChangedMessage = { gated: !state || (state.overdue && !state.totp && state.passkeys === 0), from: thisTab }
    const channel = new BroadcastChannel(channelName)
    channel.postMessage(message)
    channel.close()
  }
}

/**
 * In every portal page: forgets, in this tab, what a change to the factors made in another tab
 * made stale. A tab the change gates, on a page other than Security, is left as it is until it
 * reaches Security (its next navigation goes there): rendering it again at once would put
 * Security in place of the page, over whatever the member was typing.
 */
export function SignInChangedListener(): null {
  const forget = useForgetSignIn()
  const pathname = usePathname()
  const latest = useRef({ forget, pathname })
  const pending = useRef(false)
  useEffect(() => {
    latest.current = { forget, pathname }
  })
  useEffect(() => {
    if (typeof BroadcastChannel === 'undefined') return
    const channel = new BroadcastChannel(channelName)
    channel.onmessage = (event: MessageEvent<Partial<SignInChangedMessage> | null>) => {
      if (event.data?.from === thisTab) return
      const gated = event.data?.gated !== false
      if (gated && latest.current.pathname !== secondFactorSetupPath) {
        pending.current = true
        return
      }
      pending.current = false
      void latest.current.forget().catch(() => undefined)
    }
    return () => channel.close()
  }, [])
  // Back and Forward are answered from the router's memory, without asking the server: a gated
  // tab would show the pages it left (Articles, with its list refused) as if nothing had changed.
  // While a change waits to be caught up on, they load the page in full, which the gate decides.
  useEffect(() => {
    const onHistory = () => {
      if (pending.current) window.location.reload()
    }
    window.addEventListener('popstate', onHistory)
    return () => window.removeEventListener('popstate', onHistory)
  }, [])
  useEffect(() => {
    if (!pending.current || pathname !== secondFactorSetupPath) return
    pending.current = false
    void latest.current.forget().catch(() => undefined)
  }, [pathname])
  return null
}
