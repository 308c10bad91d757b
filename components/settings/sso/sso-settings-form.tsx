'use client'

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import type { SsoConnectionView } from '@/lib/auth/sso-connection'
import { useTRPC } from '@/components/trpc-context'
import { refusalMessage } from '@/components/portal-error'
import { StatusMessage, type Status } from '../status-message'
import styles from '../settings.module.css'

type Fields = { displayName: string; issuer: string; clientId: string; clientSecret: string; enabled: boolean; requireSso: boolean; jitEmailDomain: string }

const empty: Fields = { displayName: '', issuer: '', clientId: '', clientSecret: '', enabled: true, requireSso: false, jitEmailDomain: '' }

/** The newsroom's identity provider; the stored client secret is never shown, only replaced. */
export function SsoSettingsForm() {
  const trpc = useTRPC()
  const current = useQuery(trpc.sso.get.queryOptions())
  if (current.isPending) return <p className="muted">Loading…</p>
  if (current.isError) return <p className="alert error" role="alert">The settings could not be loaded. {refusalMessage(current.error)}</p>
  return <SsoFields stored={current.data} />
}

function SsoFields({ stored }: { stored: SsoConnectionView | null }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const [fields, setFields] = useState<Fields>(stored ? { ...stored, clientSecret: '', jitEmailDomain: stored.jitEmailDomain ?? '' } : empty)
  const [status, setStatus] = useState<Status>(null)

  const save = useMutation(
    trpc.sso.save.mutationOptions({
      onSuccess: async () => {
        setStatus({ kind: 'success', text: 'Single sign-on saved.', focus: true })
        setFields((previous) => ({ ...previous, clientSecret: '' }))
        await queryClient.invalidateQueries(trpc.sso.get.queryFilter())
      },
      onError: (error) => setStatus({ kind: 'error', text: refusalMessage(error), focus: true }),
    }),
  )

  const submit = (event: FormEvent) => {
    event.preventDefault()
    setStatus(null)
    save.mutate({ ...fields, jitEmailDomain: fields.jitEmailDomain || null })
  }
  const text = (name: 'displayName' | 'issuer' | 'clientId' | 'clientSecret' | 'jitEmailDomain') => ({
    id: `sso-${name}`,
    value: fields[name],
    onChange: (event: { target: { value: string } }) => setFields({ ...fields, [name]: event.target.value }),
  })

  return (
    <form onSubmit={submit} noValidate aria-label="Single sign-on settings">
      <StatusMessage status={status} />
      {stored?.clientSecretSet && !stored.clientSecretReadable && (
        <p className="alert error" role="alert" data-testid="sso-secret-unreadable">
          The stored client secret can&apos;t be read (the server&apos;s encryption key changed, or the stored value was altered); enter it again. Until then
          nobody can sign in with single sign-on.
        </p>
      )}
      <label htmlFor="sso-displayName">Identity provider name (the button says “Sign in with …”)</label>
      <input type="text" placeholder="Okta" required {...text('displayName')} />
      <label htmlFor="sso-issuer">Issuer URL</label>
      <input type="url" placeholder="https://login.example.org" required {...text('issuer')} />
      <label htmlFor="sso-clientId">Client id</label>
      <input type="text" autoComplete="off" required {...text('clientId')} />
      <label htmlFor="sso-clientSecret">Client secret</label>
      <input type="password" autoComplete="new-password" placeholder={stored?.clientSecretSet ? 'Stored (encrypted). Leave empty to keep it.' : ''} {...text('clientSecret')} />
      <label className={styles.checkboxRow}>
        <input type="checkbox" checked={fields.enabled} onChange={(event) => setFields({ ...fields, enabled: event.target.checked })} />
        <span>
          <strong>Members can sign in with it</strong>
        </span>
      </label>
      <label className={styles.checkboxRow}>
        <input type="checkbox" checked={fields.requireSso} onChange={(event) => setFields({ ...fields, requireSso: event.target.checked })} />
        <span>
          <strong>Require single sign-on</strong> <span className="muted">Password sign-in is off for members; admins keep it as a recovery path, and each use is in the audit log.</span>
        </span>
      </label>
      <p className="muted">
        Whether a sign-in through the identity provider also asks for the portal&apos;s second factor (and whether admins always must) is set in{' '}
        <a href="/settings/two-factor">Two-factor policy</a>.
      </p>
      <label htmlFor="sso-jitEmailDomain">Create writers just in time for this e-mail domain (empty: off)</label>
      <input type="text" placeholder="example.org" {...text('jitEmailDomain')} />
      <p>
        <button type="submit" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save single sign-on'}
        </button>
      </p>
    </form>
  )
}
