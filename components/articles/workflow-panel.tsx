'use client'

import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useEffect, useRef, useState } from 'react'
import { isSendBack, type ApiStatus } from '@/lib/articles/article-status'
import type { ArticleRecord } from '@/lib/articles/article-schemas'
import type { Role } from '@/lib/db/generated/enums'
import { formatLocalInstant } from '@/lib/time/local-datetime'
import { ConfirmDialog } from '@/components/confirm-dialog'
import { useTRPC } from '@/components/trpc-context'
import { LocalTime } from '@/components/local-time'
import { usePassed } from '@/components/use-passed'
import { describePortalError } from '@/components/portal-error'
import { ScheduleForm } from './schedule-form'
import { StatusBadge, statusLabels } from './status-badge'
import styles from './articles.module.css'

type Props = {
  article: ArticleRecord
  /** The moves the domain offers this person from the current state (offeredMoves). */
  moves: ApiStatus[]
  /** Why no move is offered (articleActionRefusal's words), when none is. */
  noMovesReason: string | null
  canManageSchedule: boolean
  /** Whether to offer "Approve and publish" (mayApproveAndPublish). */
  canApproveAndPublish: boolean
  role: Role
  authorName: string | undefined
  /** Unsaved edits in the form: moving now would publish or review something else than what is on screen. */
  blocked: boolean
  /** Why moves are not offered now for another reason (someone else holds the edit lease). */
  blockedReason?: string | null
}

/** Words for a move. Which moves exist is the domain's decision; this only names them. */
function moveLabel(from: ApiStatus, to: ApiStatus, role: Role): string {
  if (to === 'archived') return 'Archive'
  if (to === 'published') return 'Publish now'
  if (to === 'approved') return 'Approve'
  if (to === 'in-review') return from === 'draft' ? 'Submit for review' : 'Return to review'
  if (from === 'published') return 'Unpublish'
  if (from === 'archived') return 'Restore to draft'
  return role === 'writer' ? 'Withdraw to draft' : 'Send back to draft'
}

function doneMessage(article: ArticleRecord, scheduled: boolean): string {
  if (scheduled && article.scheduled_publish_at) return `Scheduled for ${formatLocalInstant(article.scheduled_publish_at)}.`
  if (article.status === 'published') return `Published. It is live at ${article.url}.`
  return `Moved to ${statusLabels[article.status].toLowerCase()}.`
}

export function WorkflowPanel({ article, moves, noMovesReason, canManageSchedule, canApproveAndPublish, role, authorName, blocked: unsaved, blockedReason = null }: Props) {
  const blocked = unsaved || Boolean(blockedReason)
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const [message, setMessage] = useState('')
  const [failure, setFailure] = useState<{ message: string; stale: boolean } | null>(null)
  // A move that takes a live article off the site waits for a confirmation, as revoking a key does.
  const [confirming, setConfirming] = useState<ApiStatus | null>(null)
  const alertRef = useRef<HTMLDivElement>(null)
  // Every move can carry a note (issue 29): one draft of it, shown in the panel and in whichever
  // dialog confirms the move, sent with the move and cleared once the move is made.
  const [note, setNote] = useState('')
  const withNote = () => (note.trim() ? { note } : {})

  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries(trpc.articles.get.queryFilter({ article_id: article.article_id })),
      queryClient.invalidateQueries(trpc.articles.history.queryFilter({ article_id: article.article_id })),
      queryClient.invalidateQueries(trpc.articles.list.pathFilter()),
      queryClient.invalidateQueries(trpc.articles.notes.pathFilter()),
    ])

  const fail = (error: unknown) => {
    const described = describePortalError(error)
    setMessage('')
    // A 412 means the page was out of date: the move was judged against the version it showed.
    setFailure({ message: described.message, stale: described.code === 'PRECONDITION_FAILED' })
    // Someone else may have moved it: show it as it is now, with the moves (and confirmations)
    // that fit its current state, so asking again is a decision about what is really there.
    void refresh()
  }

  const transition = useMutation(
    trpc.articles.transition.mutationOptions({
      onMutate: () => setFailure(null),
      onSuccess: async (result) => {
        setNote('')
        await refresh()
        setMessage(doneMessage(result.article, result.scheduled))
      },
      onError: fail,
    }),
  )
  const approveAndPublish = useMutation(
    trpc.articles.approveAndPublish.mutationOptions({
      onMutate: () => setFailure(null),
      onSuccess: async (article) => {
        setNote('')
        await refresh()
        setMessage(`Approved and published. It is live at ${article.url}.`)
      },
      onError: fail,
    }),
  )
  const cancelSchedule = useMutation(
    trpc.articles.cancelSchedule.mutationOptions({
      onMutate: () => setFailure(null),
      onSuccess: async () => {
        await refresh()
        setMessage('The scheduled publication was cancelled; the article stays approved.')
      },
      onError: fail,
    }),
  )

  useEffect(() => {
    if (failure) alertRef.current?.focus()
  }, [failure])

  const busy = transition.isPending || cancelSchedule.isPending || approveAndPublish.isPending
  const disabled = busy || blocked
  const move = (to: ApiStatus, publishAt?: string) =>
    transition.mutate({ article_id: article.article_id, version: article.version, to_state: to, ...(publishAt && { publish_at: publishAt }), ...withNote() })
  // Sending a story back asks why: the author sees the note beside History and on their desk.
  // Its note is its own: what needs doing is written for this move, and is never sent with another.
  const [sendingBack, setSendingBack] = useState(false)
  const [sendBackNote, setSendBackNote] = useState('')
  const [noteError, setNoteError] = useState<string | null>(null)
  const sendsBack = (to: ApiStatus) => role !== 'writer' && isSendBack(article.status, to)
  // Taking a story off the site, or archiving it, asks first: neither is undone in one click.
  const request = (to: ApiStatus) => (article.status === 'published' || to === 'archived' ? setConfirming(to) : sendsBack(to) ? setSendingBack(true) : move(to))
  const pendingMove = transition.isPending ? transition.variables?.to_state : undefined
  // A schedule whose time passed while the article is still approved did not happen.
  const overdue = usePassed(article.scheduled_publish_at)
  const canPublish = moves.includes('published')
  const otherMoves = moves.filter((to) => to !== 'published')
  const offersMoves = otherMoves.length > 0 || canPublish || canApproveAndPublish

  return (
    <aside className={styles.panel} aria-label="Workflow">
      <section className="card" aria-labelledby="workflow-status-heading">
        <h2 id="workflow-status-heading">Status</h2>
        <dl className={styles.facts}>
          <dt>State</dt>
          <dd data-testid="article-status">
            <StatusBadge status={article.status} scheduled={article.scheduled_publish_at !== null} />
          </dd>
          <dt>Author</dt>
          <dd>{authorName ?? '…'}</dd>
          {article.scheduled_publish_at && (
            <>
              <dt>Scheduled</dt>
              <dd data-testid="scheduled-for">
                <LocalTime iso={article.scheduled_publish_at} withZoneId />
                {article.status === 'approved' && overdue && (
                  <>
                    <strong> — overdue</strong>
                    <p className={styles.hint}>It did not go live at its time. Publish it now, or set a new time.</p>
                  </>
                )}
              </dd>
            </>
          )}
          {article.published_at && (
            <>
              <dt>{article.status === 'published' ? 'Published' : 'Last published'}</dt>
              <dd data-testid="published-at">
                <LocalTime iso={article.published_at} withZoneId />
              </dd>
            </>
          )}
          {article.url && (
            <>
              <dt>Public URL</dt>
              <dd>
                <a href={article.url} target="_blank" rel="noopener noreferrer" data-testid="public-url">
                  {article.url}
                </a>
              </dd>
            </>
          )}
          {article.previous_urls.length > 0 && (
            <>
              <dt>Earlier addresses</dt>
              <dd>
                <ul className={styles.addressList} data-testid="previous-urls">
                  {article.previous_urls.map((url) => (
                    <li key={url}>{url}</li>
                  ))}
                </ul>
                <p className={styles.hint}>Sites redirect these to the current address.</p>
              </dd>
            </>
          )}
          <dt>Article version</dt>
          <dd data-testid="article-version">{article.version}</dd>
        </dl>
      </section>

      <section className="card" aria-labelledby="workflow-actions-heading">
        <h2 id="workflow-actions-heading">Workflow</h2>
        {failure && (
          <div role="alert" className="alert error" tabIndex={-1} ref={alertRef} data-testid="workflow-failure">
            {failure.stale ? (
              <>
                <p>
                  <strong>Not done: this article changed after your page showed it.</strong> {failure.message}
                </p>
                <p>The page now shows it as it is. If you still want a move, choose it again.</p>
              </>
            ) : (
              <>
                <strong>Not done.</strong> {failure.message}
              </>
            )}
          </div>
        )}
        <p role="status" aria-live="polite" className={styles.hint} data-testid="workflow-status">
          {message}
        </p>
        {blocked && (
          <p id="workflow-blocked" className={styles.hint}>
            {blockedReason ?? 'Save your changes first: moves apply to the saved article.'}
          </p>
        )}
        {moves.length === 0 && !article.scheduled_publish_at && (
          <p className={styles.hint} data-testid="no-moves">
            {noMovesReason ?? `Your role has no moves from ${statusLabels[article.status].toLowerCase()}.`}
          </p>
        )}
        {offersMoves && (
          <div className={styles.moveNoteField}>
            <label htmlFor="move-note">Note with your move (optional)</label>
            <textarea id="move-note" rows={2} maxLength={2000} value={note} disabled={busy} aria-describedby="move-note-hint" onChange={(event) => setNote(event.target.value)} />
            <p id="move-note-hint" className={styles.hint}>
              It goes with the next move you make, into the article’s notes and History.
            </p>
          </div>
        )}
        {otherMoves.length > 0 && (
          <div className={styles.moves}>
            {otherMoves.map((to) => (
              <button
                key={to}
                type="button"
                className={to === 'archived' || article.status === 'published' ? 'danger' : undefined}
                disabled={disabled}
                aria-describedby={blocked ? 'workflow-blocked' : undefined}
                aria-busy={pendingMove === to}
                onClick={() => request(to)}
              >
                {pendingMove === to ? `${moveLabel(article.status, to, role)}…` : moveLabel(article.status, to, role)}
              </button>
            ))}
          </div>
        )}
        {canApproveAndPublish && (
          <div className={styles.publishGroup}>
            <button
              type="button"
              disabled={disabled}
              aria-busy={approveAndPublish.isPending}
              aria-describedby={blocked ? 'workflow-blocked' : undefined}
              onClick={() => approveAndPublish.mutate({ article_id: article.article_id, version: article.version, ...withNote() })}
            >
              {approveAndPublish.isPending ? 'Approving and publishing…' : 'Approve and publish'}
            </button>
            <p className={styles.hint}>Both moves are recorded, as if made one after the other.</p>
          </div>
        )}
        {canPublish && (
          <div className={styles.publishGroup}>
            <h3>Publish</h3>
            <button
              type="button"
              disabled={disabled}
              aria-busy={pendingMove === 'published'}
              aria-describedby={blocked ? 'workflow-blocked' : undefined}
              onClick={() => move('published')}
            >
              {pendingMove === 'published' ? 'Publishing…' : moveLabel(article.status, 'published', role)}
            </button>
            {canManageSchedule && (
              <ScheduleForm disabled={disabled} rescheduling={article.scheduled_publish_at !== null} onSchedule={(publishAt) => move('published', publishAt)} />
            )}
          </div>
        )}
        {article.scheduled_publish_at && canManageSchedule && (
          <div className={styles.actions}>
            <button type="button" className="secondary" disabled={busy} onClick={() => cancelSchedule.mutate({ article_id: article.article_id, version: article.version })}>
              Cancel schedule
            </button>
          </div>
        )}
      </section>
      <ConfirmDialog
        open={sendingBack}
        title="Send back to draft"
        confirmLabel="Send back"
        busyLabel="Sending back…"
        busy={transition.isPending}
        tone="primary"
        error={noteError}
        onCancel={() => {
          setSendingBack(false)
          setNoteError(null)
        }}
        onConfirm={() => {
          if (!sendBackNote.trim()) {
            setNoteError('Say what needs doing: the author sees this note.')
            return
          }
          setNoteError(null)
          transition.mutate(
            { article_id: article.article_id, version: article.version, to_state: 'draft', note: sendBackNote },
            { onSettled: () => setSendingBack(false), onSuccess: () => setSendBackNote('') },
          )
        }}
      >
        <label htmlFor="send-back-note">What needs doing? {authorName ? `${authorName} sees this` : 'The author sees this'} beside the article and on their desk.</label>
        <textarea
          id="send-back-note"
          rows={3}
          maxLength={2000}
          value={sendBackNote}
          onChange={(event) => {
            setSendBackNote(event.target.value)
            // The note the error asked for is being written: the error no longer holds.
            if (event.target.value.trim()) setNoteError(null)
          }}
        />
      </ConfirmDialog>
      <ConfirmDialog
        open={confirming !== null}
        title={confirming === 'archived' ? 'Archive this article?' : 'Take this article off the site?'}
        confirmLabel={confirming ? moveLabel(article.status, confirming, role) : 'Confirm'}
        busyLabel={confirming === 'archived' ? 'Archiving…' : 'Taking it down…'}
        busy={transition.isPending}
        onCancel={() => setConfirming(null)}
        onConfirm={() => {
          if (!confirming) return
          transition.mutate({ article_id: article.article_id, version: article.version, to_state: confirming, ...withNote() }, { onSettled: () => setConfirming(null) })
        }}
      >
        {article.status === 'published' ? (
          <p>
            “{article.headline}” is live{article.url ? ` at ${article.url}` : ''}. Readers lose it as soon as you confirm; its links stop working until it is
            published again.
          </p>
        ) : (
          <p>“{article.headline}” leaves the newsroom’s working lists. Readers never see an archived article; to work on it again, restore it to draft.</p>
        )}
        {confirming === 'archived' && article.scheduled_publish_at && (
          <p data-testid="archive-drops-schedule">
            <strong>
              Its publication scheduled for <LocalTime iso={article.scheduled_publish_at} withZoneId /> is cancelled: it will not go live.
            </strong>
          </p>
        )}
        <label htmlFor="confirm-move-note">Why (optional): it goes with the move into the article’s notes and History.</label>
        <textarea id="confirm-move-note" rows={2} maxLength={2000} value={note} onChange={(event) => setNote(event.target.value)} />
      </ConfirmDialog>
    </aside>
  )
}
