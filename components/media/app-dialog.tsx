'use client'

import { useEffect, useId, useRef, useSyncExternalStore, type ReactNode } from 'react'
import { createPortal } from 'react-dom'
import styles from './media.module.css'

/**
 * A modal on the native <dialog>, as ConfirmDialog is (the browser traps focus, Escape closes,
 * focus goes back to the opener), for what is more than a yes or no: choosing an image from the
 * library. Never window.prompt or confirm. Drawn into <body> (a portal): the article editor opens
 * it from inside its <form>, whose Enter-to-submit must not reach the dialog's search box.
 */
const noSubscription = () => () => undefined

export function AppDialog({ open, title, onClose, children, testId }: { open: boolean; title: string; onClose: () => void; children: ReactNode; testId?: string }) {
  const ref = useRef<HTMLDialogElement>(null)
  const opener = useRef<HTMLElement | null>(null)
  const titleId = useId()
  // In the browser only (there is no <body> to draw into on the server).
  const mounted = useSyncExternalStore(noSubscription, () => true, () => false)
  useEffect(() => {
    const dialog = ref.current
    if (!dialog) return
    if (open && !dialog.open) {
      opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null
      dialog.showModal()
    } else if (!open && dialog.open) {
      dialog.close()
      if (opener.current?.isConnected) opener.current.focus()
    }
  }, [open, mounted])
  if (!mounted) return null
  return createPortal(
    <dialog
      ref={ref}
      className={styles.dialog}
      aria-labelledby={titleId}
      data-testid={testId}
      onCancel={(event) => {
        event.preventDefault()
        onClose()
      }}
    >
      <h2 id={titleId}>{title}</h2>
      {open && children}
    </dialog>,
    document.body,
  )
}
