'use client'

import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useEffect, useRef, useState } from 'react'
import { isSendBack, type ApiStatus } from '@/lib/articles/article-status'
import type { ArticleRecord } from '@/lib/articles/article-schemas'
import type { Role } from '@/lib/db/generated/enums'
import { formatLocalInstant } from '@/lib/time/local-datetime'
import { ConfirmDialog, useConfirmation } from '@/components/confirm-dialog'
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
  /** Why a scheduled publication will not go live by itself now (no event queue, or unreachable), or null. */
  scheduleWarning: string | null
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

function doneMessage(article: ArticleRecord, scheduled: boolean, scheduleWarning: string | null = null): string {
  if (scheduled && article.scheduled_publish_at) return `Scheduled for ${formatLocalInstant(article.scheduled_publish_at)}.${scheduleWarning ? ` ${scheduleWarning}` : ''}`
  if (article.status === 'published') return `Published. It is live at ${article.url}.`
  return `Moved to ${statusLabels[article.status].toLowerCase()}.`
}

export function WorkflowPanel({ article, moves, noMovesReason, canManageSchedule, scheduleWarning, canApproveAndPublish, role, authorName, blocked: unsaved, blockedReason = null }: Props) {
  const blocked = unsaved || Boolean(blockedReason)
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const [message, setMessage] = useState('')
  const [failure, setFailure] = useState<{ message: string; stale: boolean } | null>(null)
  // Moves that ask first (sending back, taking a live story down, archiving) open one dialog,
  // pinned to the version and state on screen when it opened (useConfirmation).
  const confirmation = useConfirmation<{ to: ApiStatus }>({ version: article.version, state: article.status })
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
    // A question refused because the article changed under the open dialog is told in the
    // dialog itself (it asks again for the new state); the page only catches up behind it.
    if (described.code === 'PRECONDITION_FAILED' && confirmation.isOpen) return void refresh()
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
        setMessage(doneMessage(result.article, result.scheduled, result.schedule_warning))
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
  const [noteError, setNoteError] = useState<string | null>(null)
  // The server's words when it refused the confirmed move (what happened since, who, when).
  const [refusal, setRefusal] = useState<{ askedAt: number; text: string } | null>(null)
  const sendsBack = (from: ApiStatus, to: ApiStatus) => role !== 'writer' && isSendBack(from, to)
  // Sending back asks why (the author sees the note); taking a story off the site, or archiving
  // it, asks first: neither is undone in one click.
  const asksFirst = (from: ApiStatus, to: ApiStatus) => sendsBack(from, to) || from === 'published' || to === 'archived'
  const request = (to: ApiStatus) => {
    setNoteError(null)
    setRefusal(null)
    return asksFirst(article.status, to) ? confirmation.open({ to }) : move(to)
  }
  const confirmMove = () => {
    const { payload, subject } = confirmation
    if (!payload || !subject) return
    const from = subject.state as ApiStatus
    if (sendsBack(from, payload.to) && !note.trim()) {
      setNoteError('Say what needs doing: the author sees this note.')
      return
    }
    setNoteError(null)
    confirmation.sent()
    // The version and state the question was asked for, never the page's newer ones: if either
    // no longer holds, the server refuses (412) and the dialog says what the article is now.
    transition.mutate(
      { article_id: article.article_id, version: subject.version, expected_state: from, to_state: payload.to, ...withNote() },
      {
        onSuccess: () => confirmation.close(),
        onError: (error) => {
          const described = describePortalError(error)
          if (described.code !== 'PRECONDITION_FAILED') return confirmation.close()
          setRefusal({ askedAt: subject.version, text: `Not done. ${described.message}` })
          confirmation.resume()
        },
      },
    )
  }
  const pendingMove = transition.isPending ? transition.variables?.to_state : undefined
  // A schedule whose time passed while the article is still approved did not happen.
  const overdue = usePassed(article.scheduled_publish_at)
  const canPublish = moves.includes('published')
  // Moves that take a story away from readers or the desk (archive; anything from published) sit
  // apart from the everyday ones, at the end, so "Archive" is never the button beside "Approve".
  const takesAway = (to: ApiStatus) => to === 'archived' || article.status === 'published'
  const otherMoves = moves.filter((to) => to !== 'published')
  const everydayMoves = otherMoves.filter((to) => !takesAway(to))
  const destructiveMoves = otherMoves.filter(takesAway)
  const offersMoves = otherMoves.length > 0 || canPublish || canApproveAndPublish
  // The everyday and the take-away groups are the same buttons, set apart only by where they sit.
  const moveButtons = (group: ApiStatus[]) => (
    <div className={styles.moves}>
      {group.map((to) => (
        <button
          key={to}
          type="button"
          className={takesAway(to) ? 'danger' : undefined}
          disabled={disabled}
          aria-describedby={blocked ? 'workflow-blocked' : undefined}
          aria-busy={pendingMove === to}
          onClick={() => request(to)}
        >
          {pendingMove === to ? `${moveLabel(article.status, to, role)}…` : moveLabel(article.status, to, role)}
        </button>
      ))}
    </div>
  )

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
                {article.status === 'approved' && !overdue && scheduleWarning && (
                  <>
                    <strong> — will not go live by itself</strong>
                    <p className={styles.hint}>{scheduleWarning}</p>
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
                <p className={styles.hint} data-testid="previous-urls-hint">
                  {article.url
                    ? 'Sites redirect these to the current address.'
                    : 'It is not on the site now, so these lead nowhere; once it is published again, sites redirect them to its new address.'}
                </p>
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
        {everydayMoves.length > 0 && moveButtons(everydayMoves)}
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
              <ScheduleForm warning={scheduleWarning} disabled={disabled} rescheduling={article.scheduled_publish_at !== null} onSchedule={(publishAt) => move('published', publishAt)} />
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
        {destructiveMoves.length > 0 && (
          <div className={styles.destructiveMoves} data-testid="destructive-moves">
            <h3>{article.status === 'published' ? 'Take it off the site' : 'Put it away'}</h3>
            {moveButtons(destructiveMoves)}
          </div>
        )}
      </section>
      <MoveDialog
        confirmation={confirmation}
        article={article}
        role={role}
        authorName={authorName}
        stillPossible={confirmation.payload !== null && moves.includes(confirmation.payload.to)}
        sendsBack={sendsBack}
        busy={transition.isPending}
        note={note}
        onNote={(value) => {
          setNote(value)
          // The note the error asked for is being written: the error no longer holds.
          if (value.trim()) setNoteError(null)
        }}
        noteError={noteError ?? (refusal && refusal.askedAt === confirmation.subject?.version ? refusal.text : null)}
        onConfirm={confirmMove}
        onCancel={() => {
          confirmation.close()
          setNoteError(null)
          setRefusal(null)
        }}
      />
    </aside>
  )
}

/**
 * The confirmation of a move that asks first, written for the state it was opened (or asked
 * again) for: sending a story in review back asks what needs doing; a live story asks "Take this
 * article off the site?"; archiving says what it cancels. The note is the panel's own draft,
 * carried in, so nothing typed in "Note with your move" is lost by opening it.
 */
function MoveDialog(props: {
  confirmation: ReturnType<typeof useConfirmation<{ to: ApiStatus }>>
  article: ArticleRecord
  role: Role
  authorName: string | undefined
  stillPossible: boolean
  sendsBack: (from: ApiStatus, to: ApiStatus) => boolean
  busy: boolean
  note: string
  onNote: (note: string) => void
  noteError: string | null
  onConfirm: () => void
  onCancel: () => void
}) {
  const { confirmation, article, role } = props
  const to = confirmation.payload?.to ?? null
  const from = (confirmation.subject?.state ?? article.status) as ApiStatus
  const sendBack = to !== null && props.sendsBack(from, to)
  const live = from === 'published'
  const title = !to
    ? 'Confirm'
    : sendBack
      ? 'Send back to draft'
      : to === 'archived'
        ? live
          ? 'Take this article off the site and archive it?'
          : 'Archive this article?'
        : live
          ? 'Take this article off the site?'
          : `${moveLabel(from, to, role)}?`
  return (
    <ConfirmDialog
      open={confirmation.isOpen}
      title={title}
      confirmLabel={!to ? 'Confirm' : sendBack ? 'Send back' : moveLabel(from, to, role)}
      busyLabel={sendBack ? 'Sending back…' : to === 'archived' ? 'Archiving…' : live ? 'Taking it down…' : 'Moving…'}
      busy={props.busy}
      tone={sendBack || (!live && to !== 'archived') ? 'primary' : 'danger'}
      error={props.noteError}
      watch={confirmation.watch((state) => statusLabels[state as ApiStatus].toLowerCase(), props.stillPossible)}
      onCancel={props.onCancel}
      onConfirm={props.onConfirm}
    >
      {live ? (
        <p>
          “{article.headline}” is live{article.url ? ` at ${article.url}` : ''}. Readers lose it as soon as you confirm; its links stop working until it is published
          again.
        </p>
      ) : to === 'archived' ? (
        <p>“{article.headline}” leaves the newsroom’s working lists. Readers never see an archived article; to work on it again, restore it to draft.</p>
      ) : null}
      {to === 'archived' && article.scheduled_publish_at && (
        <p data-testid="archive-drops-schedule">
          <strong>
            Its publication scheduled for <LocalTime iso={article.scheduled_publish_at} withZoneId /> is cancelled: it will not go live.
          </strong>
        </p>
      )}
      {sendBack ? (
        <label htmlFor="dialog-move-note">
          What needs doing? {props.authorName ? `${props.authorName} sees this` : 'The author sees this'} beside the article and on their desk.
        </label>
      ) : (
        <label htmlFor="dialog-move-note">Why (optional): it goes with the move into the article’s notes and History.</label>
      )}
      <textarea id="dialog-move-note" rows={3} maxLength={2000} value={props.note} onChange={(event) => props.onNote(event.target.value)} />
    </ConfirmDialog>
  )
}
