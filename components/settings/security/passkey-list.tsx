'use client'

import { startRegistration } from '@simplewebauthn/browser'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import type { PasskeyView } from '@/lib/trpc/routers/security-router'
import { passkeyNameSchema } from '@/lib/auth/security-schemas'
import { useTRPC } from '@/components/trpc-context'
import { LocalTime } from '@/components/local-time'
import { refusalMessage } from '@/components/portal-error'
import { passkeyPromptFailure } from '@/components/passkey-browser'
import { StatusMessage, type Status } from '../status-message'
import { RecoveryCodesBox } from './recovery-codes-box'
import { useSignInChanged } from './use-sign-in-changed'
import styles from '../settings.module.css'

/**
 * The member's passkeys: add one (the browser's prompt, then the server keeps it), rename or
 * remove one. Each is a dangerous act, so a stale session meets the "Confirm it's you" dialog first.
 */
export function PasskeyList({ unavailable = null }: { unavailable?: string | null }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const passkeys = useQuery(trpc.security.passkeys.queryOptions())
  const [status, setStatus] = useState<Status>(null)
  const [name, setName] = useState('')
  const [nameError, setNameError] = useState<string | null>(null)
  const [editing, setEditing] = useState<{ id: string; name: string } | null>(null)
  const [removing, setRemoving] = useState<string | null>(null)
  const options = useMutation(trpc.security.passkeyRegistrationOptions.mutationOptions())
  const register = useMutation(trpc.security.registerPasskey.mutationOptions())
  const rename = useMutation(trpc.security.renamePasskey.mutationOptions())
  const remove = useMutation(trpc.security.removePasskey.mutationOptions())
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.security.passkeys.queryKey() })
  const signInChanged = useSignInChanged()
  const [adding, setAdding] = useState(false)
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null)

  async function add(event: FormEvent) {
    event.preventDefault()
    setStatus(null)
    const parsed = passkeyNameSchema.safeParse(name)
    if (!parsed.success) return setNameError(parsed.error.issues[0]!.message)
    setNameError(null)
    setAdding(true)
    try {
      let optionsJSON
      try {
        optionsJSON = await options.mutateAsync()
      } catch (error) {
        return setStatus({ kind: 'error', text: refusalMessage(error), focus: true })
      }
      let response
      try {
        response = await startRegistration({ optionsJSON })
      } catch (error) {
        return setStatus({ kind: 'error', text: passkeyPromptFailure(error), focus: true })
      }
      const added = await register.mutateAsync({ name: parsed.data, response })
      setName('')
      setRecoveryCodes(added.recoveryCodes)
      setStatus({
        kind: 'success',
        text: `Passkey “${added.name}” added. You can sign in with it instead of your password, and signing in with your password now asks for it (or a recovery code).`,
        focus: true,
      })
      await signInChanged()
    } catch (error) {
      setStatus({ kind: 'error', text: refusalMessage(error), focus: true })
    } finally {
      setAdding(false)
    }
  }

  async function saveName(passkey: PasskeyView, event: FormEvent) {
    event.preventDefault()
    if (!editing) return
    setStatus(null)
    try {
      const renamed = await rename.mutateAsync({ passkeyId: passkey.id, name: editing.name })
      setEditing(null)
      setStatus({ kind: 'success', text: `Renamed to “${renamed.name}”.`, focus: true })
      await refresh()
    } catch (error) {
      setStatus({ kind: 'error', text: refusalMessage(error), focus: true })
    }
  }

  async function confirmRemove(passkey: PasskeyView) {
    setStatus(null)
    try {
      await remove.mutateAsync({ passkeyId: passkey.id })
      setRemoving(null)
      setStatus({ kind: 'success', text: `Passkey “${passkey.name}” removed. It no longer signs you in.`, focus: true })
      await signInChanged()
    } catch (error) {
      setStatus({ kind: 'error', text: refusalMessage(error), focus: true })
    }
  }

  return (
    <section aria-labelledby="passkeys-heading">
      <h2 id="passkeys-heading">Passkeys</h2>
      <p className={styles.intro}>
        A passkey signs you in with your device’s screen lock (fingerprint, face or PIN) instead of your password, and cannot be phished: it only
        works on this site.
      </p>
      <StatusMessage status={status} />
      {unavailable && (
        <p className="alert warning" data-testid="passkeys-unavailable">
          {unavailable}
        </p>
      )}
      {recoveryCodes && <RecoveryCodesBox codes={recoveryCodes} onSaved={() => setRecoveryCodes(null)} />}
      {passkeys.isError ? (
        <p role="alert">{refusalMessage(passkeys.error)}</p>
      ) : !passkeys.data ? (
        <p className="muted" aria-busy="true">
          Loading passkeys…
        </p>
      ) : passkeys.data.length === 0 ? (
        <p className="muted" data-testid="no-passkeys">
          You have no passkeys yet.
        </p>
      ) : (
        <div className={styles.tableWrap}>
          <table>
            <caption className={styles.visuallyHidden}>Your passkeys</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Added</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span className={styles.visuallyHidden}>Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {passkeys.data.map((passkey) => (
                <tr key={passkey.id} data-testid="passkey-row">
                  <th scope="row">
                    {editing?.id === passkey.id ? (
                      <form className={`${styles.inlineForm} ${styles.compact}`} onSubmit={(event) => saveName(passkey, event)}>
                        <label htmlFor={`rename-${passkey.id}`} className={styles.visuallyHidden}>
                          New name for {passkey.name}
                        </label>
                        <input id={`rename-${passkey.id}`} value={editing.name} maxLength={80} onChange={(event) => setEditing({ id: passkey.id, name: event.target.value })} autoFocus />
                        <button type="submit" disabled={rename.isPending}>
                          Save
                        </button>
                        <button type="button" className="secondary" onClick={() => setEditing(null)}>
                          Cancel
                        </button>
                      </form>
                    ) : (
                      <>
                        {passkey.name}
                        {passkey.synced && (
                          <>
                            {' '}
                            <span className={styles.badge} title="Synced between your devices by your password manager or platform">
                              Synced
                            </span>
                          </>
                        )}
                      </>
                    )}
                  </th>
                  <td data-label="Added" className={styles.date}>
                    <LocalTime iso={passkey.createdAt} />
                  </td>
                  <td data-label="Last used" className={styles.date}>
                    {passkey.lastUsedAt ? <LocalTime iso={passkey.lastUsedAt} /> : <span className="muted">Never</span>}
                  </td>
                  <td>
                    {removing === passkey.id ? (
                      <div className={styles.rowActions}>
                        <button type="button" className="danger" disabled={remove.isPending} onClick={() => confirmRemove(passkey)} aria-label={`Yes, remove ${passkey.name}`}>
                          Yes, remove
                        </button>
                        <button type="button" className="secondary" onClick={() => setRemoving(null)}>
                          Keep
                        </button>
                      </div>
                    ) : (
                      <div className={styles.rowActions}>
                        <button type="button" className="secondary" onClick={() => setEditing({ id: passkey.id, name: passkey.name })} aria-label={`Rename ${passkey.name}`}>
                          Rename
                        </button>
                        <button type="button" className="secondary" onClick={() => setRemoving(passkey.id)} aria-label={`Remove ${passkey.name}`}>
                          Remove
                        </button>
                      </div>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {!unavailable && <form onSubmit={add} noValidate className={`${styles.inlineForm} ${styles.spaced}`}>
        <div>
          <label htmlFor="passkey-name">Name for a new passkey</label>
          <input
            id="passkey-name"
            value={name}
            maxLength={80}
            placeholder="e.g. Work laptop"
            aria-invalid={nameError !== null}
            aria-describedby={nameError ? 'passkey-name-error' : undefined}
            onChange={(event) => setName(event.target.value)}
          />
          {nameError && (
            <p id="passkey-name-error" className="field-error">
              {nameError}
            </p>
          )}
        </div>
        <button type="submit" disabled={adding}>
          {adding ? 'Waiting for your device…' : 'Add a passkey'}
        </button>
      </form>}
    </section>
  )
}
