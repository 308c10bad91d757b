'use client'

import { startAuthentication } from '@simplewebauthn/browser'
import { useMutation, useQuery } from '@tanstack/react-query'
import { TRPCClientError, type TRPCLink } from '@trpc/client'
import { observable } from '@trpc/server/observable'
import { useEffect, useId, useRef, useState } from 'react'
import type { AppRouter } from '@/lib/trpc/routers/app-router'
import { refusalMessage } from '@/components/portal-error'
import { useTRPC } from '@/components/trpc-context'
import { passkeyPromptFailure } from '@/components/passkey-browser'
import styles from '@/components/settings/settings.module.css'

/** Asks the person to confirm who they are; true once they have, false if they cancel. */
export type AskToReauthenticate = () => Promise<boolean>

function needsReauthentication(error: unknown): boolean {
  return error instanceof TRPCClientError && (error.data as { domainCode?: string } | undefined)?.domainCode === 'reauthentication_required'
}

/**
 * GitHub's sudo mode, once for the whole portal: a mutation refused with
 * `reauthentication_required` (lib/auth/recent-authentication.ts) opens the password dialog
 * and, once confirmed, is sent again, so no page handles it on its own. Cancelling hands the
 * refusal to the page as any other.
 */
export function reauthenticationLink(ask: AskToReauthenticate): TRPCLink<AppRouter> {
  return () =>
    ({ op, next }) =>
      observable((observer) => {
        let subscription = next(op).subscribe({
          next: (value) => observer.next(value),
          complete: () => observer.complete(),
          error: (error) => {
            if (op.type !== 'mutation' || !needsReauthentication(error)) return observer.error(error)
            void ask().then((confirmed) => {
              if (!confirmed) return observer.error(error)
              subscription = next(op).subscribe(observer)
            })
          },
        })
        return () => subscription.unsubscribe()
      })
}

/** The dialog the link opens; rendered once inside the portal's tRPC provider. */
export function ReauthenticationDialog({ request }: { request: { resolve: (confirmed: boolean) => void } | null }) {
  const trpc = useTRPC()
  const reauthenticate = useMutation(trpc.security.reauthenticate.mutationOptions())
  const passkeyOptions = useMutation(trpc.security.passkeyReauthenticationOptions.mutationOptions())
  const withPasskey = useMutation(trpc.security.reauthenticateWithPasskey.mutationOptions())
  // Read when the dialog opens: a member with a passkey may confirm with it instead of the password.
  const passkeys = useQuery({ ...trpc.security.passkeys.queryOptions(), enabled: request !== null, staleTime: 0 })
  const hasPasskey = (passkeys.data?.length ?? 0) > 0
  const pending = reauthenticate.isPending || passkeyOptions.isPending || withPasskey.isPending
  // A member with an authenticator app may confirm with a code from it instead of the password.
  const factors = useQuery({ ...trpc.security.twoFactor.queryOptions(), enabled: request !== null })
  const [withCode, setWithCode] = useState(false)
  const dialogRef = useRef<HTMLDialogElement>(null)
  const inputRef = useRef<HTMLInputElement>(null)
  const [password, setPassword] = useState('')
  const [failure, setFailure] = useState<string | null>(null)
  const titleId = useId()

  useEffect(() => {
    const dialog = dialogRef.current
    if (!dialog) return
    if (request && !dialog.open) {
      setPassword('')
      setFailure(null)
      setWithCode(false)
      dialog.showModal()
      inputRef.current?.focus()
    } else if (!request && dialog.open) dialog.close()
  }, [request])

  const finish = (confirmed: boolean) => {
    reauthenticate.reset()
    withPasskey.reset()
    request?.resolve(confirmed)
  }

  async function confirmWithPasskey() {
    setFailure(null)
    let optionsJSON
    try {
      optionsJSON = await passkeyOptions.mutateAsync()
    } catch (error) {
      return setFailure(refusalMessage(error))
    }
    let response
    try {
      response = await startAuthentication({ optionsJSON })
    } catch (error) {
      return setFailure(passkeyPromptFailure(error))
    }
    try {
      await withPasskey.mutateAsync({ response })
      finish(true)
    } catch (error) {
      setFailure(refusalMessage(error))
    }
  }

  return (
    <dialog
      ref={dialogRef}
      className={styles.dialog}
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault()
        if (!pending) finish(false)
      }}
    >
      <form
        method="dialog"
        onSubmit={async (event) => {
          event.preventDefault()
          setFailure(null)
          try {
            await reauthenticate.mutateAsync(withCode ? { code: password } : { password })
            setPassword('')
            finish(true)
          } catch (error) {
            setFailure(refusalMessage(error))
            inputRef.current?.focus()
          }
        }}
      >
        <h2 id={titleId}>Confirm it’s you</h2>
        <p>
          This is a sensitive change. Enter your {withCode ? 'authenticator code' : 'password'}{hasPasskey && !withCode ? ' or use your passkey' : ''} to continue; you will not be asked again for the next 10 minutes.
        </p>
        <label htmlFor={`${titleId}-password`}>{withCode ? 'Code from your authenticator app' : 'Password'}</label>
        <input
          ref={inputRef}
          key={withCode ? 'code' : 'password'}
          id={`${titleId}-password`}
          type={withCode ? 'text' : 'password'}
          inputMode={withCode ? 'numeric' : undefined}
          autoComplete={withCode ? 'one-time-code' : 'current-password'}
          required
          value={password}
          onChange={(event) => setPassword(event.target.value)}
        />
        {factors.data?.totp && (
          <p>
            <button
              type="button"
              className="link-button"
              onClick={() => {
                setWithCode(!withCode)
                setPassword('')
                setFailure(null)
                setTimeout(() => inputRef.current?.focus())
              }}
            >
              {withCode ? 'Use my password instead' : 'Use a code from my authenticator app instead'}
            </button>
          </p>
        )}
        {failure && (
          <p role="alert" className="alert error">
            {failure}
          </p>
        )}
        <div className={styles.actions}>
          <button type="button" className="secondary" onClick={() => finish(false)} disabled={pending}>
            Cancel
          </button>
          {hasPasskey && (
            <button type="button" className="secondary" onClick={confirmWithPasskey} disabled={pending}>
              {withPasskey.isPending || passkeyOptions.isPending ? 'Waiting for your passkey…' : 'Use a passkey'}
            </button>
          )}
          <button type="submit" disabled={pending || password.length === 0}>
            {reauthenticate.isPending ? 'Confirming…' : 'Confirm'}
          </button>
        </div>
      </form>
    </dialog>
  )
}
