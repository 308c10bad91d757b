'use client'

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import type { ArticleRecord } from '@/lib/articles/article-schemas'
import type { RevisionRecord } from '@/lib/articles/revision-schemas'
import { comparisonTitle, inReadingOrder, leftOutMediaIds, restoredMessage, revisionChange, revisionFieldNames } from '@/lib/articles/revision-wording'
import { htmlToText, wordDiff } from '@/lib/text/word-diff'
import { useTRPC } from '@/components/trpc-context'
import { LocalTime } from '@/components/local-time'
import { describePortalError } from '@/components/portal-error'
import { ConfirmDialog, useConfirmation } from '@/components/confirm-dialog'
import styles from './articles.module.css'

export const fieldNames = revisionFieldNames

/**
 * The article's revisions, newest first, each with its own number and the article version it
 * produced: any two can be compared word by word, and an older one restored after a
 * confirmation. A restore is an ordinary save from the version on screen, so the workflow's
 * rules apply and a change made meanwhile by someone else is refused, not overwritten.
 */
export function ArticleRevisions({ article, blockedReason }: { article: ArticleRecord; blockedReason: string | null }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const revisions = useQuery(trpc.articles.revisions.queryOptions({ article_id: article.article_id, limit: 100, offset: 0 }))
  const restore = useMutation(trpc.articles.restoreRevision.mutationOptions())
  const [compared, setCompared] = useState<[string, string] | null>(null)
  const [picked, setPicked] = useState<{ from?: string; to?: string }>({})
  // The restore's question is pinned to the version on screen when it was asked (useConfirmation).
  const confirmation = useConfirmation<string>({ version: article.version, state: article.status })
  const confirming = confirmation.payload
  const setConfirming = (revisionId: string | null) => (revisionId === null ? confirmation.close() : confirmation.open(revisionId))
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null)

  const onRestore = async (revision: RevisionRecord) => {
    setMessage(null)
    try {
      confirmation.sent()
      const saved = await restore.mutateAsync({ article_id: article.article_id, revision_id: revision.revision_id, version: confirmation.subject?.version ?? article.version })
      queryClient.setQueryData(trpc.articles.get.queryKey({ article_id: article.article_id }), (previous) => (previous ? { ...previous, article: saved } : previous))
      void queryClient.invalidateQueries(trpc.articles.get.queryFilter({ article_id: article.article_id }))
      void queryClient.invalidateQueries(trpc.articles.revisions.pathFilter())
      void queryClient.invalidateQueries(trpc.articles.list.pathFilter())
      setCompared(null)
      setMessage({ kind: 'ok', text: restoredMessage(revision, saved.version, leftOutMediaIds(saved.body_removed)) })
    } catch (error) {
      const described = describePortalError(error)
      setMessage({ kind: 'error', text: described.message })
      // The page was out of date: show the article as it is now before anyone restores again.
      if (described.code === 'PRECONDITION_FAILED') void queryClient.invalidateQueries(trpc.articles.get.queryFilter({ article_id: article.article_id }))
    } finally {
      setConfirming(null)
    }
  }

  const items = revisions.data?.items
  const current = items?.[0]
  const byId = (id: string | undefined) => items?.find((item) => item.revision_id === id)
  const from = byId(picked.from) ?? items?.[1]
  const to = byId(picked.to) ?? current
  const shown = compared && byId(compared[0]) && byId(compared[1]) ? inReadingOrder(byId(compared[0])!, byId(compared[1])!) : null
  const confirmed = byId(confirming ?? undefined)
  return (
    <div className={styles.revisions}>
      <h3 id="revisions-heading">Revisions</h3>
      <p className="hint">
        Every change to the text is a revision, numbered 1, 2, 3…. The article version beside each is the one it produced; workflow moves and address changes raise the
        version without a revision.
      </p>
      {message && (
        <p role={message.kind === 'error' ? 'alert' : 'status'} className={`alert ${message.kind === 'error' ? 'error' : ''}`}>
          {message.text}
        </p>
      )}
      {revisions.isPending && <p className="muted">Loading the revisions…</p>}
      {revisions.isError && (
        <p role="alert" className="alert error">
          The revisions could not be loaded: {describePortalError(revisions.error).message}
        </p>
      )}
      {items && items.length > 1 && from && to && (
        <form
          className={styles.compareForm}
          aria-label="Compare two revisions"
          onSubmit={(event) => {
            event.preventDefault()
            setCompared([from.revision_id, to.revision_id])
          }}
        >
          <label>
            Compare{' '}
            <select aria-label="First revision" value={from.revision_id} onChange={(event) => setPicked({ ...picked, from: event.target.value })}>
              {items.map((item) => (
                <option key={item.revision_id} value={item.revision_id}>
                  Revision {item.number} (version {item.version})
                </option>
              ))}
            </select>
          </label>
          <label>
            with{' '}
            <select aria-label="Second revision" value={to.revision_id} onChange={(event) => setPicked({ ...picked, to: event.target.value })}>
              {items.map((item) => (
                <option key={item.revision_id} value={item.revision_id}>
                  Revision {item.number} (version {item.version})
                </option>
              ))}
            </select>
          </label>
          <button type="submit" className="secondary" disabled={from.revision_id === to.revision_id}>
            Compare
          </button>
        </form>
      )}
      {items && items.length > 0 && (
        <div className={styles.scrollBox}>
          <table data-testid="article-revisions" aria-labelledby="revisions-heading">
            <thead>
              <tr>
                <th scope="col">Revision</th>
                <th scope="col">Article version</th>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">Changed</th>
                <th scope="col">
                  <span className={styles.visuallyHidden}>Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {items.map((revision) => {
                // The newest revision holds the current text (a workflow move raises the version without one).
                const isCurrent = revision === current
                return (
                  <tr key={revision.revision_id}>
                    <td data-label="Revision">
                      {revision.number}
                      {isCurrent && ' (current)'}
                    </td>
                    <td data-label="Article version">{revision.version}</td>
                    <td data-label="When">
                      <LocalTime iso={revision.created_at} />
                    </td>
                    <td data-label="Who">{revision.actor?.name ?? 'The system'}</td>
                    <td data-label="Changed">{revisionChange(revision)}</td>
                    <td>
                      {!isCurrent && current && (
                        <div className={styles.revisionActions}>
                          <button type="button" onClick={() => setCompared([revision.revision_id, current.revision_id])}>
                            Compare revision {revision.number} with current
                          </button>
                          <button type="button" disabled={restore.isPending || blockedReason !== null} title={blockedReason ?? undefined} onClick={() => setConfirming(revision.revision_id)}>
                            {restore.isPending && restore.variables?.revision_id === revision.revision_id ? 'Restoring…' : `Restore revision ${revision.number}`}
                          </button>
                        </div>
                      )}
                    </td>
                  </tr>
                )
              })}
            </tbody>
          </table>
        </div>
      )}
      <ConfirmDialog
        open={confirmed !== undefined}
        title={confirmed ? `Restore revision ${confirmed.number}?` : 'Restore'}
        confirmLabel={confirmed ? `Yes, restore revision ${confirmed.number}` : 'Restore'}
        busyLabel="Restoring…"
        busy={restore.isPending}
        tone="primary"
        watch={confirmation.watch((state) => state.replace('-', ' '), true)}
        onCancel={() => setConfirming(null)}
        onConfirm={() => confirmed && void onRestore(confirmed)}
      >
        <p data-testid="restore-confirmation">
          Its headline, lede, text, tags and department become the article’s text as a new revision;
          {article.status === 'published' ? ' readers see it at once.' : ' the workflow state stays as it is.'} Nothing is lost: the text now is revision {current?.number}.
        </p>
      </ConfirmDialog>
      {blockedReason && items && items.length > 1 && <p className="hint">{blockedReason}</p>}
      {shown && current && (
        <TextComparison title={comparisonTitle(shown[0], shown[1], current.number)} before={shown[0]} after={shown[1]} onHide={() => setCompared(null)} />
      )}
    </div>
  )
}

type ComparedText = Pick<RevisionRecord, 'headline' | 'lede' | 'body' | 'tags'>

/** A revision against the article's current text (for changes since submission). */
export function RevisionComparison({ revision, article }: { revision: RevisionRecord; article: ArticleRecord }) {
  return <TextComparison title={`Revision ${revision.number} (version ${revision.version}) → current (version ${article.version})`} before={revision} after={article} />
}

function TextComparison({ title, before, after, onHide }: { title: string; before: ComparedText; after: ComparedText; onHide?: () => void }) {
  const rows = [
    { label: 'Headline', before: before.headline, after: after.headline },
    { label: 'Lede', before: before.lede ?? '', after: after.lede ?? '' },
    { label: 'Text', before: htmlToText(before.body), after: htmlToText(after.body) },
    { label: 'Tags', before: before.tags.join(', '), after: after.tags.join(', ') },
  ]
  const unchanged = rows.every((row) => row.before === row.after)
  return (
    <section className={styles.comparison} aria-label={title} data-testid="revision-comparison">
      <h4>{title}</h4>
      <p className="hint">Removed words are struck through, added words underlined.</p>
      {unchanged && <p>The text is the same in both.</p>}
      {!unchanged && (
        <dl>
          {rows.map((row) => (
            <div key={row.label}>
              <dt>{row.label}</dt>
              <dd className={styles.diff}>
                {row.before === row.after ? (
                  <span className="muted">{row.after ? 'Unchanged' : 'Empty'}</span>
                ) : (
                  wordDiff(row.before, row.after).map((part, index) =>
                    part.kind === 'same' ? <span key={index}>{part.text}</span> : part.kind === 'removed' ? <del key={index}>{part.text}</del> : <ins key={index}>{part.text}</ins>,
                  )
                )}
              </dd>
            </div>
          ))}
        </dl>
      )}
      {onHide && (
        <button type="button" className="secondary" onClick={onHide}>
          Hide comparison
        </button>
      )}
    </section>
  )
}
