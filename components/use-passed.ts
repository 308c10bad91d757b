'use client'

import { useSyncExternalStore } from 'react'

// Re-checked every 15 s, so a page left open turns "overdue" soon after the time passes.
const subscribe = (onChange: () => void) => {
  const timer = setInterval(onChange, 15_000)
  return () => clearInterval(timer)
}

/** Whether an instant has passed, as the browser's clock says; false while rendering on the server. */
export function usePassed(iso: string | null): boolean {
  return useSyncExternalStore(
    subscribe,
    () => iso !== null && Date.parse(iso) < Date.now(),
    () => false,
  )
}
