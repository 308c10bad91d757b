'use client'

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { useTRPC } from '@/components/trpc-context'
import { refusalMessage } from '@/components/portal-error'
import { ConfirmDialog } from '@/components/confirm-dialog'
import { OneTimeSecret } from '../one-time-secret'
import type { ContentKeyView } from '@/lib/trpc/routers/content-keys-router'
import styles from '../settings.module.css'

/**
 * Public content keys: read-only keys for the newsroom's site, which reads published articles
 * from /content/v1 with one (safe to embed: it reads what the site shows anyway).
 */
export function ContentKeyList() {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const keys = useQuery(trpc.contentKeys.list.queryOptions())
  const [name, setName] = useState('')
  const [created, setCreated] = useState<string | null>(null)
  const refresh = () => queryClient.invalidateQueries(trpc.contentKeys.list.queryFilter())
  // The answer of a create or revoke goes into the list at once, so what is on screen never
  // depends on whether the list's refetch overtakes a fetch that was already under way.
  const putInList = (changed: ContentKeyView) =>
    queryClient.setQueryData(trpc.contentKeys.list.queryKey(), (list) => (list ? [changed, ...list.filter((key) => key.id !== changed.id)] : [changed]))
  const create = useMutation(
    trpc.contentKeys.create.mutationOptions({
      onSuccess: async ({ key, contentKey }) => {
        setCreated(key)
        setName('')
        putInList(contentKey)
        await refresh()
      },
    }),
  )
  const [revoking, setRevoking] = useState<{ id: string; name: string } | null>(null)
  const revoke = useMutation(
    trpc.contentKeys.revoke.mutationOptions({
      onSuccess: async (revoked) => {
        setRevoking(null)
        putInList(revoked)
        await refresh()
      },
    }),
  )
  const active = keys.data?.filter((key) => !key.revokedAt) ?? []

  return (
    <section aria-labelledby="content-keys-heading" className={styles.spaced}>
      <h2 id="content-keys-heading">Content keys</h2>
      <p className={styles.intro}>
        Your public site reads published articles from <code>/content/v1/articles?key=…</code> with a content key. It reads nothing else,
        so it is safe to embed in pages; answers are cacheable by a shared cache or CDN and purged when an article changes.
      </p>
      {created && (
        <OneTimeSecret title="New content key" valueLabel="Content key" value={created} copyLabel="Copy content key" testId="new-content-key">
          <p>Copy it into your site’s configuration now; it is not shown again.</p>
        </OneTimeSecret>
      )}
      <form
        onSubmit={(event) => {
          event.preventDefault()
          create.mutate({ name })
        }}
      >
        <label htmlFor="content-key-name">Name</label> <input id="content-key-name" value={name} onChange={(event) => setName(event.target.value)} required maxLength={100} />{' '}
        <button type="submit" disabled={create.isPending}>Create content key</button>
      </form>
      {create.isError && <p className="alert error" role="alert">{refusalMessage(create.error)}</p>}
      {keys.isSuccess && active.length === 0 && <p className="muted">No active content keys.</p>}
      {active.length > 0 && (
        <table>
          <caption>Active content keys</caption>
          <thead>
            <tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Created</th><th scope="col"><span className="sr-only">Actions</span></th></tr>
          </thead>
          <tbody>
            {active.map((key) => (
              <tr key={key.id}>
                <td data-label="Name">{key.name}</td>
                <td data-label="Key" className={styles.mono}>{key.prefix}…</td>
                <td data-label="Created">{new Date(key.createdAt).toLocaleDateString()}</td>
                <td><button type="button" className="danger" disabled={revoke.isPending} onClick={() => setRevoking({ id: key.id, name: key.name })}>Revoke {key.name}</button></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ConfirmDialog
        open={revoking !== null}
        title={`Revoke the content key ${revoking?.name ?? ''}?`}
        confirmLabel="Revoke content key"
        busyLabel="Revoking…"
        busy={revoke.isPending}
        error={revoke.isError ? refusalMessage(revoke.error) : null}
        onCancel={() => setRevoking(null)}
        onConfirm={() => revoking && revoke.mutate({ id: revoking.id })}
      >
        <p>
          A site that reads articles with this key is refused (401) within seconds: readers see no articles there until it is given another key.
          Answers a cache already holds may still be served until they expire. Revoking cannot be undone.
        </p>
      </ConfirmDialog>
    </section>
  )
}
