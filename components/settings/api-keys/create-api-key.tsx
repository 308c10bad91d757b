'use client'

import { zodResolver } from '@/components/form-wording'
import { useMutation } from '@tanstack/react-query'
import Link from 'next/link'
import { useState } from 'react'
import { useForm, useWatch } from 'react-hook-form'
import type { z } from 'zod'
import { createApiTokenSchema, expiryPresetDays } from '@/lib/tokens/api-token-schemas'
import { useTRPC } from '@/components/trpc-context'
import { OneTimeSecret } from '../one-time-secret'
import { refusalMessage } from '@/components/portal-error'
import { applyServerFieldErrors } from '@/components/server-field-errors'
import { StatusMessage, type Status } from '../status-message'
import { Field } from '../field'
import { LocalTime } from '@/components/local-time'
import styles from '../settings.module.css'

export type ScopeOption = { scope: string; description: string; served: boolean }

type KeyValues = z.input<typeof createApiTokenSchema>

type Created = { token: string; name: string; scopes: string[]; prefix: string; expiresAt: string | null; allowedAddresses: string[] }

/** "Create new key": the form, then the one and only view of the new token. */
export function CreateApiKey({ scopes }: { scopes: ScopeOption[] }) {
  const trpc = useTRPC()
  // The token is kept here and nowhere else (not in the query cache, the URL or storage).
  const [created, setCreated] = useState<Created | null>(null)
  const [failure, setFailure] = useState<Status>(null)
  const form = useForm<KeyValues, unknown, z.output<typeof createApiTokenSchema>>({ resolver: zodResolver(createApiTokenSchema), defaultValues: { name: '', scopes: [], expiry: 'never', expiryDate: '', allowedAddresses: '' }, shouldFocusError: true })
  const create = useMutation(trpc.apiKeys.create.mutationOptions({ gcTime: 0 }))
  const { errors, isSubmitting } = form.formState
  const expiry = useWatch({ control: form.control, name: 'expiry' })

  // Registered before the fields below it: react-hook-form focuses the first invalid field in
  // the order fields were registered, and a Field's control registers only when the Field renders.
  const nameInput = form.register('name')
  const onSubmit = form.handleSubmit(async (values) => {
    setFailure(null)
    try {
      const result = await create.mutateAsync(values)
      setCreated({ token: result.token, name: result.key.name, scopes: result.key.scopes, prefix: result.key.prefix, expiresAt: result.key.expiresAt, allowedAddresses: result.key.allowedAddresses })
      create.reset()
      form.reset()
    } catch (error) {
      if (!applyServerFieldErrors(form, error, ['name', 'scopes', 'expiryDate', 'allowedAddresses'])) setFailure({ kind: 'error', text: refusalMessage(error), focus: true })
    }
  })

  if (created) {
    return (
      <>
        <OneTimeSecret title={`Key “${created.name}” created`} valueLabel="Your new API token" value={created.token} copyLabel="Copy token" testId="new-api-token">
          <p>
            <strong>Copy this token now: it is shown only this once.</strong> The service stores only a fingerprint of it, so nobody can
            show it to you again. If it is lost, revoke the key and create a new one. Treat it like a password: keep it in your
            integration’s secret store, never in code or chat.
          </p>
          <p className={styles.small}>
            Scopes: {created.scopes.join(', ')} · Listed as <span className={styles.mono}>{created.prefix}…</span> ·{' '}
            {created.expiresAt ? (
              <>
                expires <LocalTime iso={created.expiresAt} />
              </>
            ) : (
              'never expires'
            )}{' '}
            · {created.allowedAddresses.length ? `only from ${created.allowedAddresses.join(', ')}` : 'from any address'}
          </p>
        </OneTimeSecret>
        <p>
          <Link href="/settings/api-keys" className={styles.buttonLink}>
            Done, back to API keys
          </Link>
        </p>
      </>
    )
  }

  return (
    <form method="post" onSubmit={onSubmit} noValidate aria-describedby="create-key-intro">
      <p id="create-key-intro" className={styles.intro}>
        The token of the new key is shown once, right after you create it. It acts for you: it can never do more than your role allows.
      </p>
      <StatusMessage status={failure} />
      <Field id="key-name" label="Name" hint="Say who uses it, e.g. “Wire importer” or “Mobile app (production)”." error={errors.name?.message}>
        {(control) => <input {...control} autoComplete="off" {...nameInput} />}
      </Field>

      <fieldset className={styles.fieldset} aria-describedby={errors.scopes ? 'scopes-error' : undefined} aria-invalid={!!errors.scopes}>
        <legend>Scopes</legend>
        <p className={styles.hint}>Choose only what the integration needs. These are the scopes your role may grant.</p>
        {scopes.map((option) => (
          <label key={option.scope} className={styles.checkboxRow}>
            <input type="checkbox" value={option.scope}{...form.register('scopes')} />
            <span>
              <strong className={styles.mono}>{option.scope}</strong>{' '}
<span className="muted">
                {option.description}
                {!option.served && ' No endpoints yet: the service has none of these APIs, so a key gains nothing from it today.'}
              </span>
            </span>
          </label>
        ))}
        {errors.scopes && (
          <p id="scopes-error" className="field-error">
            {errors.scopes.message}
          </p>
        )}
      </fieldset>

      <fieldset className={styles.fieldset} aria-describedby="expiry-hint">
        <legend>Expires</legend>
        <p id="expiry-hint" className={styles.hint}>
          A key that expires stops working by itself: a forgotten integration’s key is no risk for ever. Requests after it get a 401 saying it expired.
        </p>
        <label className={styles.checkboxRow}>
          <input type="radio" value="never" {...form.register('expiry')} /> <span>Never</span>
        </label>
        {expiryPresetDays.map((days) => (
          <label key={days} className={styles.checkboxRow}>
            <input type="radio" value={String(days)} {...form.register('expiry')} /> <span>In {days} days</span>
          </label>
        ))}
        <label className={styles.checkboxRow}>
          <input type="radio" value="date" {...form.register('expiry')} /> <span>On a date</span>
        </label>
        {expiry === 'date' && (
          <Field id="key-expiry-date" label="Last day it works (UTC)" error={errors.expiryDate?.message}>
            {(control) => <input {...control} type="date" {...form.register('expiryDate')} />}
          </Field>
        )}
      </fieldset>

      <Field
        id="key-allowed-addresses"
        label="Allowed addresses (optional)"
        hint="IPv4 or IPv6 addresses or CIDR ranges, one per line, e.g. 203.0.113.0/24. Requests from anywhere else get a 403 naming their address. Empty: any address."
        error={errors.allowedAddresses?.message}
      >
        {(control) => <textarea {...control} rows={3} spellCheck={false} className={styles.mono} {...form.register('allowedAddresses')} />}
      </Field>

      <div className={styles.actions}>
        <button type="submit" disabled={isSubmitting}>
          {isSubmitting ? 'Creating…' : 'Create key'}
        </button>
        <Link href="/settings/api-keys">Cancel</Link>
      </div>
    </form>
  )
}
