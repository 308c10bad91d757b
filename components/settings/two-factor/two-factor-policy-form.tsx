'use client'

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import type { SsoSecondFactor, TwoFactorPolicy, TwoFactorPolicyView } from '@/lib/auth/two-factor-policy'
import { useTRPC } from '@/components/trpc-context'
import { refusalMessage } from '@/components/portal-error'
import { StatusMessage, type Status } from '../status-message'
import styles from '../settings.module.css'

const choices: { value: TwoFactorPolicy; label: string; hint: string }[] = [
  { value: 'optional', label: 'Optional', hint: 'Each member decides.' },
  { value: 'admins', label: 'Required for admins', hint: 'Admins hold the keys and webhook secrets.' },
  { value: 'all', label: 'Required for everyone', hint: 'Every member, whatever their role.' },
]

const ssoChoices: { value: SsoSecondFactor; label: string; hint: string }[] = [
  { value: 'trust_provider', label: 'Trust the identity provider’s MFA', hint: 'A sign-in through single sign-on needs nothing more (your provider checks a second factor itself).' },
  {
    value: 'portal_factor',
    label: 'Also ask for the portal’s second factor',
    hint: 'After the identity provider, members with a portal factor are asked for it, and the policy above covers single sign-on too.',
  },
]

export function TwoFactorPolicyForm() {
  const trpc = useTRPC()
  const current = useQuery(trpc.twoFactorPolicy.get.queryOptions())
  if (current.isPending) return <p className="muted">Loading…</p>
  if (current.isError) return <p className="alert error" role="alert">The policy could not be loaded. {refusalMessage(current.error)}</p>
  return <PolicyFields stored={current.data} />
}

function PolicyFields({ stored }: { stored: TwoFactorPolicyView }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const [policy, setPolicy] = useState<TwoFactorPolicy>(stored.policy)
  const [graceDays, setGraceDays] = useState(String(stored.graceDays))
  const [ssoSecondFactor, setSsoSecondFactor] = useState<SsoSecondFactor>(stored.ssoSecondFactor)
  const [adminsNeedPortalFactor, setAdminsNeedPortalFactor] = useState(stored.adminsNeedPortalFactor)
  const [status, setStatus] = useState<Status>(null)
  const save = useMutation(
    trpc.twoFactorPolicy.save.mutationOptions({
      // The saved policy is the answer itself: put it in the cache rather than read it again, so
      // "saved" is what the admin sees whatever the new policy asks of their own session.
      onSuccess: (saved) => {
        queryClient.setQueryData(trpc.twoFactorPolicy.get.queryKey(), saved)
        setStatus({ kind: 'success', text: 'Two-factor policy saved.', focus: true })
      },
      onError: (error) => setStatus({ kind: 'error', text: refusalMessage(error), focus: true }),
    }),
  )
  const submit = (event: FormEvent) => {
    event.preventDefault()
    setStatus(null)
    save.mutate({ policy, graceDays: Number(graceDays), ssoSecondFactor, adminsNeedPortalFactor })
  }
  return (
    <form onSubmit={submit} noValidate aria-label="Two-factor policy" className={styles.narrowForm}>
      <StatusMessage status={status} />
      <fieldset>
        <legend>Who must use two-factor sign-in</legend>
        {choices.map((choice) => (
          <label key={choice.value} className={styles.checkboxRow}>
            <input type="radio" name="policy" value={choice.value} checked={policy === choice.value} onChange={() => setPolicy(choice.value)} />
            <span>
              <strong>{choice.label}</strong> <span className="muted">{choice.hint}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <label htmlFor="two-factor-grace">Grace period (days) for members who have not set it up</label>
      <input id="two-factor-grace" type="number" min={0} max={90} inputMode="numeric" value={graceDays} onChange={(event) => setGraceDays(event.target.value)} />
      <fieldset>
        <legend>Sign-ins through single sign-on</legend>
        {ssoChoices.map((choice) => (
          <label key={choice.value} className={styles.checkboxRow}>
            <input type="radio" name="ssoSecondFactor" value={choice.value} checked={ssoSecondFactor === choice.value} onChange={() => setSsoSecondFactor(choice.value)} />
            <span>
              <strong>{choice.label}</strong> <span className="muted">{choice.hint}</span>
            </span>
          </label>
        ))}
        <label className={styles.checkboxRow}>
          <input type="checkbox" checked={adminsNeedPortalFactor} onChange={(event) => setAdminsNeedPortalFactor(event.target.checked)} />
          <span>
            <strong>Admins must always use the portal’s second factor</strong>{' '}
            <span className="muted">Every admin sets one up (within the grace) and is asked for it at every sign-in, single sign-on included.</span>
          </span>
        </label>
      </fieldset>
      <p>
        <button type="submit" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save policy'}
        </button>
      </p>
    </form>
  )
}
