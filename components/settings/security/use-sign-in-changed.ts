'use client'

import { useQueryClient } from '@tanstack/react-query'
import { useTRPC } from '@/components/trpc-context'
import { signInChanged } from '@/app/(portal)/settings/security/sign-in-changed-action'

/**
 * What every change to the member's own factors must be followed by: Security's sections count
 * the factors again, and the portal's layout and router forget what they knew under the old
 * state (the two-factor reminder, links the gate sent to Security). One place, so a new factor
 * kind cannot forget half of it.
 */
export function useSignInChanged(): () => Promise<void> {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  return async () => {
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.security.twoFactor.queryKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.security.passkeys.queryKey() }),
      signInChanged(),
    ])
  }
}
