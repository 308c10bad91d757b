'use client'

import { useEffect, useId, useRef, type ReactNode } from 'react'
import styles from './confirm-dialog.module.css'

/**
 * A modal confirmation on the native <dialog>: the browser traps focus inside it, Escape
 * cancels, and focus returns to the button that opened it. Cancel takes focus first, so a
 * stray Enter never confirms something destructive.
 */
export function ConfirmDialog(props: {
  open: boolean
  title: string
  children: ReactNode
  confirmLabel: string
  busyLabel?: string
  busy?: boolean
  error?: string | null
  tone?: 'danger' | 'primary'
  onConfirm: () => void
  onCancel: () => void
}) {
  const { open, busy = false, onCancel } = props
  const dialogRef = useRef<HTMLDialogElement>(null)
  const cancelRef = useRef<HTMLButtonElement>(null)
  const titleId = useId()
  const descriptionId = useId()

  useEffect(() => {
    const dialog = dialogRef.current
    if (!dialog) return
    if (open && !dialog.open) {
      dialog.showModal()
      cancelRef.current?.focus()
    } else if (!open && dialog.open) {
      dialog.close()
    }
  }, [open])

  return (
    <dialog
      ref={dialogRef}
      className={styles.dialog}
      aria-labelledby={titleId}
      aria-describedby={descriptionId}
      onCancel={(event) => {
        // Escape: close through our state, and not while the action is under way.
        event.preventDefault()
        if (!busy) onCancel()
      }}
    >
      <h2 id={titleId}>{props.title}</h2>
      <div id={descriptionId}>{props.children}</div>
      {props.error && (
        <p role="alert" className="alert error">
          {props.error}
        </p>
      )}
      <div className={styles.actions}>
        <button ref={cancelRef} type="button" className="secondary" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
        <button type="button" className={props.tone === 'primary' ? undefined : 'danger'} onClick={props.onConfirm} disabled={busy}>
          {busy ? (props.busyLabel ?? 'Working…') : props.confirmLabel}
        </button>
      </div>
    </dialog>
  )
}
