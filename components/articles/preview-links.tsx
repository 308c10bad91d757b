'use client'

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { LocalTime } from '@/components/local-time'
import { describePortalError } from '@/components/portal-error'
import { useTRPC } from '@/components/trpc-provider'
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
  const revoke = useMutation(trpc.articles.revokePreviewLink.mutationOptions({ onSuccess: refresh, onError: (error) => setFailure(describePortalError(error).message) }))

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
          <span className={styles.hint}>(shown only now: copy it)</span>
        </p>
      )}
      {links.data && links.data.length > 0 && (
        <ul className={styles.noteList} data-testid="live-preview-links">
          {links.data.map((link) => (
            <li key={link.preview_link_id}>
              By {link.created_by?.name ?? 'an integration'}, until <LocalTime iso={link.expires_at} />{' '}
              <button type="button" className="secondary" disabled={revoke.isPending} onClick={() => revoke.mutate({ article_id: articleId, preview_link_id: link.preview_link_id })}>
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}
