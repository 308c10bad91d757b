'use client'

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { useTRPC } from '@/components/trpc-provider'
import { refusalMessage } from '@/components/portal-error'
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
  const create = useMutation(trpc.contentKeys.create.mutationOptions({ onSuccess: async ({ key }) => { setCreated(key); setName(''); await refresh() } }))
  const revoke = useMutation(trpc.contentKeys.revoke.mutationOptions({ onSuccess: refresh }))
  const active = keys.data?.filter((key) => !key.revokedAt) ?? []

  return (
    <section aria-labelledby="content-keys-heading" className={styles.spaced}>
      <h2 id="content-keys-heading">Content keys</h2>
      <p className={styles.intro}>
        Your public site reads published articles from <code>/content/v1/articles?key=…</code> with a content key. It reads nothing else,
        so it is safe to embed in pages; answers are cacheable by a shared cache or CDN and purged when an article changes.
      </p>
      {created && (
        <p className="alert" role="status">
          New content key: <code className={styles.mono}>{created}</code> — copy it now; it is not shown again.
        </p>
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
                <td>{key.name}</td>
                <td className={styles.mono}>{key.prefix}…</td>
                <td>{new Date(key.createdAt).toLocaleDateString()}</td>
                <td><button type="button" disabled={revoke.isPending} onClick={() => revoke.mutate({ id: key.id })}>Revoke {key.name}</button></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}
