'use client'

import { useState } from 'react'
import { LocalTime } from '@/components/local-time'
import { describePortalError } from '@/components/portal-error'
import type { LeaseState } from './use-edit-lease'
import styles from './articles.module.css'

/**
 * Says who has the article open in an editor. On opening an article someone else is editing,
 * the person chooses: read it only, or take it over (recorded in History; the other editor's
 * page turns read-only and keeps their text). When someone takes it from this page, it says who.
 */
export function LeaseBanner({ state, notice = null, onTakeOver, onReadOnly }: { state: LeaseState; notice?: string | null; onTakeOver: () => Promise<void>; onReadOnly: () => void }) {
  const [busy, setBusy] = useState(false)
  const [failure, setFailure] = useState<string | null>(null)
  const takeOver = async () => {
    setBusy(true)
    setFailure(null)
    try {
      await onTakeOver()
    } catch (error) {
      setFailure(describePortalError(error).message)
    } finally {
      setBusy(false)
    }
  }
  const takeOverButton = (
    <button type="button" onClick={() => void takeOver()} disabled={busy}>
      {busy ? 'Taking over…' : 'Take over editing'}
    </button>
  )

  if (state.status === 'held') {
    return (
      <div role="alert" className={`alert warning ${styles.leaseBanner}`} data-testid="lease-banner">
        <p>
          <strong>{state.lock.holder_name} is editing this article</strong> (since <LocalTime iso={state.lock.since} />
          ). If you take over, their editor turns read-only and they keep what they typed, unsaved.
        </p>
        <div className={styles.leaseActions}>
          <button type="button" className="secondary" onClick={onReadOnly}>
            Open read-only
          </button>
          {takeOverButton}
        </div>
        {failure && <p className="field-error">{failure}</p>}
      </div>
    )
  }
  if (state.status === 'reading' && state.lock) {
    return (
      <div role="status" className={`alert ${styles.leaseBanner}`} data-testid="lease-banner">
        <p>
          Read-only: {state.lock.holder_name} is editing this article (since <LocalTime iso={state.lock.since} />
          ).
        </p>
        <div className={styles.leaseActions}>{takeOverButton}</div>
        {failure && <p className="field-error">{failure}</p>}
      </div>
    )
  }
  if (state.status === 'lost') {
    const holder = state.lock ? state.lock.holder_name : null
    return (
      <div role="alert" className={`alert warning ${styles.leaseBanner}`} data-testid="lease-banner">
        <p>
          <strong>{state.taker.lapsed ? `Your hold on this article lapsed while this page was away, and ${state.taker.name} started editing it` : `${state.taker.name} took over editing this article`}</strong>
          {state.taker.since && (
            <>
              {' '}
              at <LocalTime iso={state.taker.since} />
            </>
          )}
          . Your editor is read-only {holder ? `while ${holder === state.taker.name ? 'they edit' : `${holder} edits`}` : 'now'}; what you typed and did not save is in the box
          below, so you can copy it.
        </p>
        <div className={styles.leaseActions}>{takeOverButton}</div>
        {failure && <p className="field-error">{failure}</p>}
      </div>
    )
  }
  if (notice) {
    return (
      <p role="status" className={`alert ${styles.leaseBanner}`} data-testid="lease-banner">
        {notice}
      </p>
    )
  }
  return null
}
