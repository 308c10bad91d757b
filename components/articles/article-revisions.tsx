'use client'

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import type { ArticleRecord } from '@/lib/articles/article-schemas'
import type { RevisionRecord } from '@/lib/articles/revision-schemas'
import { htmlToText, wordDiff } from '@/lib/text/word-diff'
import { useTRPC } from '@/components/trpc-provider'
import { LocalTime } from '@/components/local-time'
import { describePortalError } from '@/components/portal-error'
import { ConfirmDialog } from '@/components/confirm-dialog'
import styles from './articles.module.css'

export const fieldNames: Record<RevisionRecord['fields'][number], string> = {
  headline: 'headline',
  lede: 'lede',
  body: 'text',
  department_id: 'department',
  tags: 'tags',
  author_id: 'author',
}

/**
 * The article's revisions, newest first: each can be compared word by word with the current
 * text and restored. A restore is an ordinary save from the version on screen, so the workflow's
 * rules apply and a change made meanwhile by someone else is refused, not overwritten.
 */
export function ArticleRevisions({ article, blockedReason }: { article: ArticleRecord; blockedReason: string | null }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const revisions = useQuery(trpc.articles.revisions.queryOptions({ article_id: article.article_id, limit: 100, offset: 0 }))
  const restore = useMutation(trpc.articles.restoreRevision.mutationOptions())
  const [compared, setCompared] = useState<string | null>(null)
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null)
  // A restore replaces the current text; it asks first, naming what changes.
  const [restoring, setRestoring] = useState<RevisionRecord | null>(null)

  const onRestore = async (revision: RevisionRecord) => {
    setMessage(null)
    try {
      const saved = await restore.mutateAsync({ article_id: article.article_id, revision_id: revision.revision_id, version: article.version })
      queryClient.setQueryData(trpc.articles.get.queryKey({ article_id: article.article_id }), (previous) => (previous ? { ...previous, article: saved } : previous))
      void queryClient.invalidateQueries(trpc.articles.get.queryFilter({ article_id: article.article_id }))
      void queryClient.invalidateQueries(trpc.articles.revisions.pathFilter())
      void queryClient.invalidateQueries(trpc.articles.list.pathFilter())
      setCompared(null)
      setMessage({ kind: 'ok', text: `Restored version ${revision.version}. This is now version ${saved.version}.` })
    } catch (error) {
      const described = describePortalError(error)
      setMessage({ kind: 'error', text: described.message })
      // The page was out of date: show the article as it is now before anyone restores again.
      if (described.code === 'PRECONDITION_FAILED') void queryClient.invalidateQueries(trpc.articles.get.queryFilter({ article_id: article.article_id }))
    }
  }

  const items = revisions.data?.items
  return (
    <div className={styles.revisions}>
      <h3 id="revisions-heading">Revisions</h3>
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
      {items && items.length > 0 && (
        <div className={styles.scrollBox}>
        <table data-testid="article-revisions" aria-labelledby="revisions-heading">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">Version</th>
              <th scope="col">Changed</th>
              <th scope="col">
                <span className={styles.visuallyHidden}>Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {items.map((revision, index) => {
              // The newest revision holds the current text (a workflow move raises the version without one).
              const isCurrent = index === 0
              return (
                <tr key={revision.revision_id}>
                  <td>
                    <LocalTime iso={revision.created_at} />
                  </td>
                  <td>{revision.actor?.name ?? 'The system'}</td>
                  <td>
                    {revision.version}
                    {isCurrent && ' (current)'}
                  </td>
                  <td>{revision.fields.length === 6 ? 'Created' : revision.fields.map((field) => fieldNames[field]).join(', ')}</td>
                  <td>
                    <div className={styles.revisionActions}>
                      <button type="button" aria-expanded={compared === revision.revision_id} onClick={() => setCompared(compared === revision.revision_id ? null : revision.revision_id)}>
                        {compared === revision.revision_id ? 'Hide comparison' : `Compare version ${revision.version} with current`}
                      </button>
                      {!isCurrent && (
                        <button
                          type="button"
                          disabled={restore.isPending || blockedReason !== null}
                          title={blockedReason ?? undefined}
                          onClick={() => setRestoring(revision)}
                        >
                          {restore.isPending && restore.variables?.revision_id === revision.revision_id ? 'Restoring…' : `Restore version ${revision.version}`}
                        </button>
                      )}
                    </div>
                  </td>
                </tr>
              )
            })}
          </tbody>
        </table>
        </div>
      )}
      {blockedReason && items && items.length > 1 && <p className="hint">{blockedReason}</p>}
      <ConfirmDialog
        open={restoring !== null}
        title={`Restore version ${restoring?.version ?? ''}?`}
        confirmLabel={`Restore version ${restoring?.version ?? ''}`}
        busyLabel="Restoring…"
        busy={restore.isPending}
        tone="primary"
        onCancel={() => setRestoring(null)}
        onConfirm={() => {
          if (restoring) void onRestore(restoring).finally(() => setRestoring(null))
        }}
      >
        <p>
          The headline, lede, text and other fields become those of version {restoring?.version} as a new save; today’s text stays in Revisions and can be
          restored in turn.
          {article.status === 'published' && ' The article is live: readers see the restored text at once.'}
        </p>
      </ConfirmDialog>
      {compared && items && <RevisionComparison revision={items.find((item) => item.revision_id === compared)!} article={article} />}
    </div>
  )
}

export function RevisionComparison({ revision, article }: { revision: RevisionRecord; article: ArticleRecord }) {
  const rows = [
    { label: 'Headline', before: revision.headline, after: article.headline },
    { label: 'Lede', before: revision.lede ?? '', after: article.lede ?? '' },
    { label: 'Text', before: htmlToText(revision.body), after: htmlToText(article.body) },
    { label: 'Tags', before: revision.tags.join(', '), after: article.tags.join(', ') },
  ]
  const unchanged = rows.every((row) => row.before === row.after)
  return (
    <section className={styles.comparison} aria-label={`Version ${revision.version} compared with the current text`} data-testid="revision-comparison">
      <h4>
        Version {revision.version} → current (version {article.version})
      </h4>
      <p className="hint">Removed words are struck through, added words underlined.</p>
      {unchanged && <p>The text is the same as now.</p>}
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
    </section>
  )
}
