'use client'

import { useEffect, useRef } from 'react'
import styles from './settings.module.css'

/** `focus`: move keyboard focus to the message, e.g. when the button that acted is gone. */
export type Status = { kind: 'success' | 'error'; text: string; focus?: boolean } | null

/**
 * A live region that is always in the page, so screen readers announce each new message;
 * errors are assertive, confirmations polite.
 */
export function StatusMessage({ status }: { status: Status }) {
  const ref = useRef<HTMLDivElement>(null)
  useEffect(() => {
    if (status?.focus) ref.current?.focus()
  }, [status])
  return (
    <div ref={ref} tabIndex={-1} className={styles.statusRegion}>
      <div role="status" aria-live="polite">
        {status?.kind === 'success' && <p className={`alert ${styles.success}`}>{status.text}</p>}
      </div>
      <div role="alert" aria-live="assertive">
        {status?.kind === 'error' && <p className="alert error">{status.text}</p>}
      </div>
    </div>
  )
}
