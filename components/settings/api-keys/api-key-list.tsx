'use client'

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import type { ApiKeyView } from '@/lib/trpc/routers/api-keys-router'
import { useTRPC } from '@/components/trpc-context'
import { ConfirmDialog } from '@/components/confirm-dialog'
import { refusalMessage } from '@/components/portal-error'
import { StatusMessage, type Status } from '../status-message'
import styles from '../settings.module.css'
import { ApiKeyTable } from './api-key-table'
import { useListNarrowing } from '../list-narrowing'

export function ApiKeyList() {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const keys = useQuery(trpc.apiKeys.list.queryOptions())
  const [pending, setPending] = useState<ApiKeyView | null>(null)
  const [status, setStatus] = useState<Status>(null)
  const revoke = useMutation(
    trpc.apiKeys.revoke.mutationOptions({
      onSuccess: async (key) => {
        setPending(null)
        // The row's button is gone; keyboard focus goes to the confirmation instead.
        setStatus({ kind: 'success', text: `Revoked “${key.name}” (${key.prefix}…). It stopped working immediately.`, focus: true })
        await queryClient.invalidateQueries(trpc.apiKeys.list.queryFilter())
      },
    }),
  )

  const active = keys.data?.filter((key) => !key.revokedAt) ?? []
  const revoked = keys.data?.filter((key) => key.revokedAt) ?? []
  const narrowed = useListNarrowing(active, (key) => [key.name, key.prefix, key.ownerName, ...key.scopes])

  return (
    <section aria-labelledby="keys-heading">
      <h2 id="keys-heading">Keys</h2>
      <StatusMessage status={status} />
      {keys.isPending && <p className="muted">Loading keys…</p>}
      {keys.isError && <p className="alert error" role="alert">The keys could not be loaded. {refusalMessage(keys.error)}</p>}
      {keys.isSuccess && active.length === 0 && <p className="muted">No active keys. Integrations cannot call the API until you create one.</p>}
      {narrowed.controls}
      {active.length > 0 && (
        <ApiKeyTable
          keys={narrowed.visible}
          caption="Active API keys"
          onRevoke={(key) => {
            revoke.reset()
            setPending(key)
          }}
        />
      )}
      {revoked.length > 0 && (
        <details className={styles.spaced}>
          <summary>Revoked keys ({revoked.length})</summary>
          <ApiKeyTable keys={revoked} caption="Revoked API keys" />
        </details>
      )}
      <ConfirmDialog
        open={pending !== null}
        title={`Revoke “${pending?.name ?? ''}”?`}
        confirmLabel="Revoke key"
        busyLabel="Revoking…"
        busy={revoke.isPending}
        error={revoke.isError ? refusalMessage(revoke.error) : null}
        onCancel={() => setPending(null)}
        onConfirm={() => pending && revoke.mutate({ id: pending.id })}
      >
        <p>
          Requests with the key <span className={styles.mono}>{pending?.prefix}…</span> will be refused with 401 from the very next one.
          This cannot be undone; to restore access, create a new key.
        </p>
      </ConfirmDialog>
    </section>
  )
}
