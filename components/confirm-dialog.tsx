'use client'

import { useCallback, useEffect, useId, useRef, useState, type ReactNode } from 'react'
import styles from './confirm-dialog.module.css'

/**
 * What a confirmation was asked about: the record's version and state as the page showed them
 * when the dialog opened (an article in review at version 7). The dialog's question is written
 * for that, and its confirm sends that, never what a live update put on the page since.
 */
export type ConfirmSubject = { version: number; state: string }

/** The subject as the record is now, and what the dialog may do when it is no longer the one asked about. */
export type ConfirmWatch = {
  /** What the dialog was opened (or last asked again) for. */
  openedFor: ConfirmSubject
  /** The record as the page shows it now (live updates move this, never openedFor). */
  current: ConfirmSubject
  /** "published", "in review": the state in words, for "it is now published". */
  describeState: (state: string) => string
  /** Whether the question can be asked for the record as it is now; if not, the dialog only closes. */
  stillPossible: boolean
  /** Ask the question again for the record as it is now (the caller's content follows openedFor). */
  onAskAgain: () => void
}

export const sameSubject = (a: ConfirmSubject, b: ConfirmSubject) => a.version === b.version && a.state === b.state

/**
 * The state of a confirmation about a record that can change while it is open: `open(payload)`
 * pins the record's version and state as shown at that moment; `subject` is what the confirm
 * must act on (send its version and state, so the server refuses it once they no longer hold);
 * `watch` goes to ConfirmDialog, which says in place when the record changed underneath and
 * asks again for the new state, or only closes. Every dialog about an article goes through
 * this, so none can confirm an old question against a new state.
 */
export function useConfirmation<Payload>(current: ConfirmSubject) {
  const [opened, setOpened] = useState<{ payload: Payload; subject: ConfirmSubject; sent: boolean } | null>(null)
  // Called from a click: `current` is what the page showed when the person clicked. A caller
  // that has just learnt the record's state from the server (a save that met a newer version)
  // passes that, since the page has not drawn it yet.
  const open = (payload: Payload, subject: ConfirmSubject = current) => setOpened({ payload, subject, sent: false })
  const close = useCallback(() => setOpened(null), [])
  const askAgain = () => setOpened((was) => (was ? { ...was, subject: current, sent: false } : was))
  // While the confirmed action is under way the page refreshes with its own result: that is
  // not a change underneath. A refusal (the server found the subject changed) resumes watching.
  const sent = useCallback(() => setOpened((was) => (was ? { ...was, sent: true } : was)), [])
  const resume = useCallback(() => setOpened((was) => (was ? { ...was, sent: false } : was)), [])
  const watching = opened !== null && !opened.sent
  return {
    isOpen: opened !== null,
    payload: opened?.payload ?? null,
    /** The version and state the question was asked for: what a confirm sends. */
    subject: opened?.subject ?? null,
    stale: watching && !sameSubject(opened.subject, current),
    open,
    close,
    sent,
    resume,
    /** For ConfirmDialog's `watch`, with the caller's words and whether the question still applies. */
    watch: (describeState: (state: string) => string, stillPossible: boolean): ConfirmWatch | undefined =>
      watching ? { openedFor: opened.subject, current, describeState, stillPossible, onAskAgain: askAgain } : undefined,
  }
}

/**
 * A modal confirmation on the native <dialog>: the browser traps focus inside it, Escape
 * cancels, and focus returns to the button that opened it — or, when a confirmed action removed
 * or disabled that button (a move changes the moves offered; a revoked key loses its row), to
 * the heading of the part of the page it was in, never to <body>. Cancel takes focus first, so a
 * stray Enter never confirms something destructive.
 *
 * With `watch`, the dialog is about a record that can change while it is open: when it no longer
 * is at the version and state the question was asked for, the confirm button goes, the dialog
 * says what the record is now, and offers to ask again for that state (or, when the question no
 * longer applies, only to close).
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
  watch?: ConfirmWatch
  onConfirm: () => void
  onCancel: () => void
}) {
  const { open, busy = false, onCancel, watch } = props
  const dialogRef = useRef<HTMLDialogElement>(null)
  const cancelRef = useRef<HTMLButtonElement>(null)
  const changedRef = useRef<HTMLDivElement>(null)
  const titleId = useId()
  const descriptionId = useId()
  // Where focus goes back to: the opener, else the heading of the region it was in.
  const returnTo = useRef<{ opener: HTMLElement | null; region: Element | null }>({ opener: null, region: null })
  const stale = watch !== undefined && !sameSubject(watch.openedFor, watch.current)

  useEffect(() => {
    const dialog = dialogRef.current
    if (!dialog) return
    if (open && !dialog.open) {
      const opener = document.activeElement instanceof HTMLElement && document.activeElement !== document.body ? document.activeElement : null
      returnTo.current = { opener, region: opener?.closest('section, aside, [role="region"], main, form') ?? null }
      dialog.showModal()
      cancelRef.current?.focus()
    } else if (!open && dialog.open) {
      dialog.close()
      const { opener, region } = returnTo.current
      const settle = () => {
        const active = document.activeElement
        if (active && active !== document.body && active.isConnected) return
        if (opener?.isConnected && !(opener as HTMLButtonElement).disabled) return opener.focus()
        const heading = region?.isConnected ? region.querySelector<HTMLElement>('h1, h2, h3') : null
        const target = heading ?? document.querySelector<HTMLElement>('main h1, h1')
        if (!target) return
        if (!target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1')
        target.focus()
      }
      // Once now, and once the page has drawn the action's result (a refetch can remove the opener after the dialog closed).
      requestAnimationFrame(settle)
      setTimeout(settle, 400)
    }
  }, [open])

  // The record changed under the open dialog: the notice takes the focus (and is announced).
  useEffect(() => {
    if (stale) changedRef.current?.focus()
  }, [stale])

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
      {stale && watch && (
        <div role="alert" className={`alert warning ${styles.changed}`} tabIndex={-1} ref={changedRef} data-testid="dialog-changed">
          <p>
            <strong>This changed while the dialog was open:</strong> it is now {watch.describeState(watch.current.state)} (version {watch.current.version}), not{' '}
            {watch.describeState(watch.openedFor.state)} (version {watch.openedFor.version}) as when you were asked. Nothing has been done.
          </p>
          <p>{watch.stillPossible ? 'Read the question again for what it is now before you decide.' : 'This action no longer applies to it. Close this and look at it again.'}</p>
        </div>
      )}
      <div id={descriptionId} className={stale ? styles.outdated : undefined} aria-hidden={stale || undefined}>
        {props.children}
      </div>
      {props.error && (
        <p role="alert" className="alert error">
          {props.error}
        </p>
      )}
      <div className={styles.actions}>
        <button ref={cancelRef} type="button" className="secondary" onClick={onCancel} disabled={busy}>
          {stale && watch && !watch.stillPossible ? 'Close' : 'Cancel'}
        </button>
        {stale && watch ? (
          watch.stillPossible && (
            <button type="button" className="secondary" onClick={watch.onAskAgain}>
              Ask me again for {watch.describeState(watch.current.state)}
            </button>
          )
        ) : (
          <button type="button" className={props.tone === 'primary' ? undefined : 'danger'} onClick={props.onConfirm} disabled={busy}>
            {busy ? (props.busyLabel ?? 'Working…') : props.confirmLabel}
          </button>
        )}
      </div>
    </dialog>
  )
}
