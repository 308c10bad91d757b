'use client'

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import Link from 'next/link'
import { useId, useState } from 'react'
import { LocalTime } from '@/components/local-time'
import { describePortalError } from '@/components/portal-error'
import { useTRPC } from '@/components/trpc-context'
import { ConfirmDialog } from '@/components/confirm-dialog'
import { defaultPreviewSeconds } from '@/lib/articles/preview-link-schemas'
import styles from './articles.module.css'

/** How long a new link works: the API takes 60 s to 30 days (expires_in); these are the usual asks. */
const expiryChoices = [
  { seconds: 60 * 60, label: 'An hour' },
  { seconds: defaultPreviewSeconds, label: 'A day' },
  { seconds: 7 * 24 * 60 * 60, label: 'A week' },
  { seconds: 30 * 24 * 60 * 60, label: '30 days (the longest)' },
] as const

/**
 * "Preview on site": mints a link to the newsroom's own preview page for this draft, shown
 * once to copy or open, and lists the links that still work, each revocable. A link revoked
 * (here or anywhere else) is no longer offered to copy: it opens nothing.
 */
export function PreviewLinks({ articleId }: { articleId: string }) {
  const trpc = useTRPC()
  const id = useId()
  const queryClient = useQueryClient()
  const links = useQuery(trpc.articles.previewLinks.queryOptions({ article_id: articleId }))
  const [minted, setMinted] = useState<{ id: string; url: string; expires_at: string } | null>(null)
  const [expiresIn, setExpiresIn] = useState<number>(defaultPreviewSeconds)
  const [failure, setFailure] = useState<string | null>(null)
  const refresh = () => queryClient.invalidateQueries(trpc.articles.previewLinks.queryFilter({ article_id: articleId }))
  const create = useMutation(
    trpc.articles.createPreviewLink.mutationOptions({
      onSuccess: async (link) => {
        setMinted({ id: link.preview_link_id, url: link.url, expires_at: link.expires_at })
        setCopied('')
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
  // The link just made stops working once revoked (or expired): then it is shown as such, with nothing to copy.
  const mintedLive = minted !== null && (links.data === undefined || links.data.some((link) => link.preview_link_id === minted.id))

  return (
    <section className="card" aria-labelledby="preview-links-heading">
      <h2 id="preview-links-heading">Preview on site</h2>
      <p className={styles.hint}>
        A link that shows this article on the newsroom’s own site before it is published. Anyone with the link can see it until it expires or you revoke it. To read
        it here yourself, open the <Link href={`/articles/${encodeURIComponent(articleId)}/preview`}>preview page</Link>.
      </p>
      <div className={styles.moveNoteField}>
        <label htmlFor={`${id}-expiry`}>The link works for</label>
        <select id={`${id}-expiry`} value={expiresIn} onChange={(event) => setExpiresIn(Number(event.target.value))}>
          {expiryChoices.map((choice) => (
            <option key={choice.seconds} value={choice.seconds}>
              {choice.label}
            </option>
          ))}
        </select>
      </div>
      <button
        type="button"
        className="secondary"
        disabled={create.isPending}
        onClick={() => {
          setFailure(null)
          create.mutate({ article_id: articleId, expires_in: expiresIn })
        }}
      >
        {create.isPending ? 'Creating…' : 'Create a preview link'}
      </button>
      {failure && <p className="field-error">{failure}</p>}
      {minted && mintedLive && (
        <p role="status" data-testid="preview-link">
          <a href={minted.url} target="_blank" rel="noopener noreferrer">
            {minted.url}
          </a>{' '}
          <span className={styles.hint}>
            (shown only now: copy it; it works until <LocalTime iso={minted.expires_at} />)
          </span>{' '}
          <button type="button" className="secondary" onClick={() => void copy(minted.url)}>
            Copy link
          </button>{' '}
          <span aria-live="polite" className={styles.hint}>
            {copied}
          </span>
        </p>
      )}
      {minted && !mintedLive && (
        <p role="status" className={styles.hint} data-testid="preview-link-revoked">
          The link you created was revoked or has expired: it opens nothing now. Create a new one to share the preview again.
        </p>
      )}
      {links.data && links.data.length > 0 && (
        <ul className={styles.noteList} data-testid="live-preview-links">
          {links.data.map((link) => (
            <li key={link.preview_link_id}>
              By {link.created_by?.name ?? 'an integration'}, until <LocalTime iso={link.expires_at} />
              {link.revision_id && (
                <>
                  {' '}
                  (<Link href={`/articles/${encodeURIComponent(articleId)}/preview?revision=${encodeURIComponent(link.revision_id)}`}>the revision it shows</Link>)
                </>
              )}{' '}
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
