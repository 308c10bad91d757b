'use client'

import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { rollOverlaps, type RollOverlap } from '@/lib/tokens/api-token-schemas'
import type { ApiKeyView } from '@/lib/trpc/routers/api-keys-router'
import { useTRPC } from '@/components/trpc-context'
import { describePortalError, refusalMessage } from '@/components/portal-error'
import { LocalTime } from '@/components/local-time'
import { ConfirmDialog } from '@/components/confirm-dialog'
import { OneTimeSecret } from '../one-time-secret'
import { StatusMessage, type Status } from '../status-message'
import styles from '../settings.module.css'

const overlapLabels: Record<RollOverlap, string> = {
  none: 'None: the old secret stops now',
  '1h': '1 hour',
  '24h': '24 hours',
  '7d': '7 days',
}

/** Rename, the allowlist and rolling: what an admin changes on a live key (never its scopes). */
export function ApiKeyActions({ apiKey }: { apiKey: ApiKeyView }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const refresh = () => Promise.all([queryClient.invalidateQueries({ queryKey: trpc.apiKeys.get.queryKey({ id: apiKey.id }) }), queryClient.invalidateQueries({ queryKey: trpc.apiKeys.list.queryKey() })])
  const [name, setName] = useState(apiKey.name)
  const [allowlist, setAllowlist] = useState(apiKey.allowedAddresses.join('\n'))
  const [overlap, setOverlap] = useState<RollOverlap>('24h')
  const [status, setStatus] = useState<Status>(null)
  const [rolled, setRolled] = useState<{ token: string; worksUntil: string | null } | null>(null)
  const rename = useMutation(trpc.apiKeys.rename.mutationOptions())
  const setAllowed = useMutation(trpc.apiKeys.setAllowlist.mutationOptions())
  const roll = useMutation(trpc.apiKeys.roll.mutationOptions({ gcTime: 0 }))

  const [confirmingRoll, setConfirmingRoll] = useState(false)
  async function rollKey() {
    try {
      const result = await roll.mutateAsync({ id: apiKey.id, overlap })
      setConfirmingRoll(false)
      setRolled({ token: result.token, worksUntil: result.key.previousSecretWorksUntil })
      roll.reset()
      await refresh()
    } catch (error) {
      setConfirmingRoll(false)
      fail(error)
    }
  }

  if (apiKey.revokedAt) return null

  const fail = (error: unknown) => setStatus({ kind: 'error', text: describePortalError(error).fieldErrors[0]?.message ?? refusalMessage(error), focus: true })

  return (
    <section aria-labelledby="key-actions-heading">
      <h2 id="key-actions-heading">Manage this key</h2>
      <StatusMessage status={status} />

      {rolled && (
        <OneTimeSecret title="Key rolled" valueLabel="The new secret" value={rolled.token} copyLabel="Copy secret" testId="rolled-api-token">
          <p>
            <strong>Copy the new secret now: it is shown only this once.</strong>{' '}
            {rolled.worksUntil ? (
              <>
                The old secret keeps working until <LocalTime iso={rolled.worksUntil} />; deploy the new one before then.
              </>
            ) : (
              'The old secret no longer works.'
            )}
          </p>
        </OneTimeSecret>
      )}

      <form
        className={styles.inlineForm}
        onSubmit={async (event) => {
          event.preventDefault()
          setStatus(null)
          try {
            const key = await rename.mutateAsync({ id: apiKey.id, name })
            setName(key.name)
            setStatus({ kind: 'success', text: `Renamed to “${key.name}”.` })
            await refresh()
          } catch (error) {
            fail(error)
          }
        }}
      >
        <label>
          Name <input value={name} onChange={(event) => setName(event.target.value)} maxLength={100} />
        </label>
        <button type="submit" className="secondary" disabled={rename.isPending || name.trim() === apiKey.name}>
          Rename
        </button>
      </form>

      <form
        onSubmit={async (event) => {
          event.preventDefault()
          setStatus(null)
          try {
            const key = await setAllowed.mutateAsync({ id: apiKey.id, allowedAddresses: allowlist.split(/[\s,]+/).filter(Boolean) })
            setAllowlist(key.allowedAddresses.join('\n'))
            setStatus({ kind: 'success', text: key.allowedAddresses.length ? `Only ${key.allowedAddresses.join(', ')} may use the key now.` : 'Any address may use the key now.' })
            await refresh()
          } catch (error) {
            fail(error)
          }
        }}
      >
        <label htmlFor="key-allowlist">Allowed addresses</label>
        <textarea id="key-allowlist" aria-describedby="key-allowlist-hint" rows={3} spellCheck={false} className={styles.mono} value={allowlist} onChange={(event) => setAllowlist(event.target.value)} />
        <p id="key-allowlist-hint" className={styles.hint}>
          IPv4 or IPv6 addresses or CIDR ranges, one per line. Empty: any address. Applies from the key’s next request.
        </p>
        <button type="submit" className="secondary" disabled={setAllowed.isPending}>
          Save allowlist
        </button>
      </form>

      {!apiKey.expired && (
        <form
          onSubmit={(event) => {
            event.preventDefault()
            setStatus(null)
            // A roll cannot be taken back: ask first, saying when the current secret stops.
            setConfirmingRoll(true)
          }}
        >
          <fieldset className={styles.fieldset}>
            <legend>Roll the key</legend>
            <p className={styles.hint}>
              A new secret for this key: same name, scopes, bounds and log. Choose how long the current secret keeps working beside it, so the
              integration can switch without a gap.
            </p>
            {(Object.keys(rollOverlaps) as RollOverlap[]).map((value) => (
              <label key={value} className={styles.checkboxRow}>
                <input type="radio" name="overlap" value={value} checked={overlap === value} onChange={() => setOverlap(value)} /> <span>{overlapLabels[value]}</span>
              </label>
            ))}
            <div className={styles.actions}>
              <button type="submit" disabled={roll.isPending}>
                {roll.isPending ? 'Rolling…' : 'Roll key'}
              </button>
            </div>
          </fieldset>
        </form>
      )}
      <ConfirmDialog
        open={confirmingRoll}
        title={`Roll the key “${apiKey.name}”?`}
        confirmLabel="Roll key"
        busyLabel="Rolling…"
        busy={roll.isPending}
        onCancel={() => setConfirmingRoll(false)}
        onConfirm={() => void rollKey()}
      >
        <p>
          {overlap === 'none'
            ? 'The current secret stops working at once: every integration using it is refused until it has the new one.'
            : `The current secret keeps working for ${overlapLabels[overlap]} beside the new one, then stops: deploy the new secret before then.`}{' '}
          A roll cannot be undone.
        </p>
      </ConfirmDialog>
    </section>
  )
}
