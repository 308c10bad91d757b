'use client'

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { LocalTime } from '@/components/local-time'
import { describePortalError } from '@/components/portal-error'
import { useTRPC } from '@/components/trpc-context'
import { ConfirmDialog } from '@/components/confirm-dialog'
import styles from './articles.module.css'

/**
 * "Preview on site": mints a link to the newsroom's own preview page for this draft, shown
 * once to copy or open, and lists the links that still work, each revocable.
 */
export function PreviewLinks({ articleId }: { articleId: string }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const links = useQuery(trpc.articles.previewLinks.queryOptions({ article_id: articleId }))
  const [minted, setMinted] = useState<{ url: string; token: string } | null>(null)
  const [failure, setFailure] = useState<string | null>(null)
  const refresh = () => queryClient.invalidateQueries(trpc.articles.previewLinks.queryFilter({ article_id: articleId }))
  const create = useMutation(
    trpc.articles.createPreviewLink.mutationOptions({
      onSuccess: async (link) => {
        setMinted({ url: link.url, token: link.token })
        await refresh()
      },
      onError: (error) => setFailure(describePortalError(error).message),
    }),
  )
  const [revoking, setRevoking] = useState<{ preview_link_id: string; expires_at: string } | null>(null)
  const [copied, setCopied] = useState('')
  const revoke = useMutation(
    trpc.articles.revokePreviewLink.mutationOptions({
      onSuccess: async () => {
        setRevoking(null)
        await refresh()
      },
      onError: (error) => setFailure(describePortalError(error).message),
    }),
  )
  async function copy(url: string) {
    try {
      await navigator.clipboard.writeText(url)
      setCopied('Copied to the clipboard.')
    } catch {
      setCopied('Copying was not allowed by the browser. Select the link and copy it by hand.')
    }
  }

  return (
    <section className="card" aria-labelledby="preview-links-heading">
      <h2 id="preview-links-heading">Preview on site</h2>
      <p className={styles.hint}>A link that shows this article on the newsroom’s site before it is published, for a day. Anyone with the link can see it until it expires or you revoke it.</p>
      <button
        type="button"
        className="secondary"
        disabled={create.isPending}
        onClick={() => {
          setFailure(null)
          create.mutate({ article_id: articleId })
        }}
      >
        {create.isPending ? 'Creating…' : 'Create a preview link'}
      </button>
      {failure && <p className="field-error">{failure}</p>}
      {minted && (
        <p role="status" data-testid="preview-link">
          <a href={minted.url} target="_blank" rel="noopener noreferrer">
            {minted.url}
          </a>{' '}
          <span className={styles.hint}>(shown only now: copy it)</span>{' '}
          <button type="button" className="secondary" onClick={() => void copy(minted.url)}>
            Copy link
          </button>{' '}
          <span aria-live="polite" className={styles.hint}>
            {copied}
          </span>
        </p>
      )}
      {links.data && links.data.length > 0 && (
        <ul className={styles.noteList} data-testid="live-preview-links">
          {links.data.map((link) => (
            <li key={link.preview_link_id}>
              By {link.created_by?.name ?? 'an integration'}, until <LocalTime iso={link.expires_at} />{' '}
              <button type="button" className="secondary" disabled={revoke.isPending} onClick={() => setRevoking(link)}>
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
      <ConfirmDialog
        open={revoking !== null}
        title="Revoke this preview link?"
        confirmLabel="Revoke link"
        busyLabel="Revoking…"
        busy={revoke.isPending}
        onCancel={() => setRevoking(null)}
        onConfirm={() => revoking && revoke.mutate({ article_id: articleId, preview_link_id: revoking.preview_link_id })}
      >
        <p>Anyone who opens it from now on sees “not found” instead of this draft. A revoked link cannot be brought back; create a new one to share again.</p>
      </ConfirmDialog>
    </section>
  )
}
