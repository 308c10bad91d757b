'use client'

import { useMutation, useQuery } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { ConfirmDialog } from '@/components/confirm-dialog'
import { LocalTime } from '@/components/local-time'
import { refusalMessage } from '@/components/portal-error'
import { useTRPC } from '@/components/trpc-context'
import { StatusMessage, type Status } from '../status-message'
import { RecoveryCodesBox } from './recovery-codes-box'
import { useSignInChanged } from './use-sign-in-changed'
import styles from '../settings.module.css'

type Enrolment = { secret: string; uri: string; qrCode: string }

/**
 * The member's second factor: set up an authenticator app (QR code and the key in text, then a
 * code to confirm), see how many recovery codes are left, get new ones, or remove the app. New
 * recovery codes are shown once, here, and never again.
 */
export function TwoFactorSection() {
  const trpc = useTRPC()
  const state = useQuery(trpc.security.twoFactor.queryOptions())
  const [enrolment, setEnrolment] = useState<Enrolment | null>(null)
  const [code, setCode] = useState('')
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null)
  const [status, setStatus] = useState<Status>(null)
  const [confirmRemove, setConfirmRemove] = useState(false)
  const refresh = useSignInChanged()

  const start = useMutation(trpc.security.startTotp.mutationOptions())
  const confirm = useMutation(trpc.security.confirmTotp.mutationOptions())
  const remove = useMutation(trpc.security.removeTotp.mutationOptions())
  const regenerate = useMutation(trpc.security.regenerateRecoveryCodes.mutationOptions())

  // Offered beside the authenticator app and, with passkeys only, beside the passkeys' line.
  const newRecoveryCodes = async () => {
    setStatus(null)
    try {
      setRecoveryCodes((await regenerate.mutateAsync()).recoveryCodes)
      setStatus({ kind: 'success', text: 'New recovery codes made; the old ones no longer work.' })
      await refresh()
    } catch (error) {
      setStatus({ kind: 'error', text: refusalMessage(error), focus: true })
    }
  }

  const begin = async () => {
    setStatus(null)
    setRecoveryCodes(null)
    try {
      setEnrolment(await start.mutateAsync())
      setCode('')
    } catch (error) {
      setStatus({ kind: 'error', text: refusalMessage(error), focus: true })
    }
  }

  const finish = async (event: FormEvent) => {
    event.preventDefault()
    setStatus(null)
    try {
      const answer = await confirm.mutateAsync({ code })
      setEnrolment(null)
      setRecoveryCodes(answer.recoveryCodes)
      setStatus({ kind: 'success', text: 'Two-factor sign-in is on. Signing in now asks for a code from your app after the password.' })
      await refresh()
    } catch (error) {
      setStatus({ kind: 'error', text: refusalMessage(error), focus: true })
    }
  }

  if (state.isPending) return <p className="muted">Loading…</p>
  if (state.isError) return <p className="alert error" role="alert">Two-factor sign-in could not be loaded. {refusalMessage(state.error)}</p>
  // A reminder never names a deadline already past (overdue): then it is "now".
  const { totp, passkeys, recoveryCodesLeft, dueBy, overdue } = state.data

  return (
    <section aria-labelledby="two-factor-heading">
      <h2 id="two-factor-heading">Two-factor sign-in</h2>
      <StatusMessage status={status} />
      {dueBy && !totp && passkeys === 0 && (
        <p className="alert warning" data-testid="two-factor-reminder">
          {overdue ? (
            'Your newsroom requires two-factor sign-in: set up an authenticator app or a passkey now to continue.'
          ) : (
            <>
              Your newsroom requires two-factor sign-in. Set it up by <LocalTime iso={dueBy} />.
            </>
          )}
        </p>
      )}
      {recoveryCodes && <RecoveryCodesBox codes={recoveryCodes} onSaved={() => setRecoveryCodes(null)} />}
      {totp ? (
        <>
          <p>
            <strong>On</strong>, with an authenticator app. {recoveryCodesLeft} of 10 recovery codes left.
          </p>
          <div className={styles.actions}>
            <button
              type="button"
              className="secondary"
              disabled={regenerate.isPending}
              onClick={newRecoveryCodes}
            >
              New recovery codes
            </button>
            <button type="button" className="danger" onClick={() => setConfirmRemove(true)}>
              Remove authenticator app
            </button>
          </div>
          <ConfirmDialog
            open={confirmRemove}
            title="Remove the authenticator app?"
            confirmLabel="Remove"
            busyLabel="Removing…"
            busy={remove.isPending}
            tone="danger"
            onCancel={() => setConfirmRemove(false)}
            onConfirm={async () => {
              try {
                await remove.mutateAsync()
                setConfirmRemove(false)
                setRecoveryCodes(null)
                setStatus({ kind: 'success', text: 'Authenticator app removed. Signing in asks for the password only.', focus: true })
                await refresh()
              } catch (error) {
                setConfirmRemove(false)
                setStatus({ kind: 'error', text: refusalMessage(error), focus: true })
              }
            }}
          >
            <p>Signing in will ask for your password only, and your recovery codes stop working.</p>
          </ConfirmDialog>
        </>
      ) : enrolment ? (
        <form method="post" onSubmit={finish} noValidate className={styles.narrowForm} aria-label="Set up an authenticator app">
          <p>Scan this code with your authenticator app (1Password, Google Authenticator, Microsoft Authenticator, Aegis…):</p>
          {/* Drawn on the server from the key: the key is never sent to another site to make the picture. */}
          {/* eslint-disable-next-line @next/next/no-img-element */}
          <img src={enrolment.qrCode} alt="QR code of the authenticator key" width={200} height={200} className={styles.qrCode} />
          <p>Or type this key into the app:</p>
          <code className={styles.secretValue} data-testid="totp-secret">
            {enrolment.secret.replace(/(.{4})(?!$)/g, '$1 ')}
          </code>
          <label htmlFor="totp-code">Code the app shows now</label>
          <input
            id="totp-code"
            type="text"
            inputMode="numeric"
            autoComplete="one-time-code"
            maxLength={7}
            value={code}
            onChange={(event) => setCode(event.target.value)}
          />
          <div className={styles.actions}>
            <button type="submit" disabled={confirm.isPending || code.trim().length < 6}>
              {confirm.isPending ? 'Checking…' : 'Turn on two-factor sign-in'}
            </button>
            <button type="button" className="secondary" onClick={() => setEnrolment(null)}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <>
          <p>Off. With it on, signing in asks for a code from an app on your phone after the password, so a stolen password alone is not enough.</p>
          {passkeys > 0 && (
            <p data-testid="passkey-recovery-codes">
              Your passkeys are your second factor now. {recoveryCodesLeft} of 10 recovery codes left.{' '}
              <button
                type="button"
                className="link-button"
                disabled={regenerate.isPending}
                onClick={newRecoveryCodes}
              >
                New recovery codes
              </button>
            </p>
          )}
          <button type="button" onClick={begin} disabled={start.isPending}>
            Set up an authenticator app
          </button>
        </>
      )}
    </section>
  )
}
