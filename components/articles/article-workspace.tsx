'use client'

import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query'
import Link from 'next/link'
import { useCallback, useState } from 'react'
import type { Role } from '@/lib/db/generated/enums'
import { useTRPC } from '@/components/trpc-context'
import { ArticleForm } from './article-form'
import { ArticleHistory } from './article-history'
import { ArticleNotes } from './article-notes'
import { PreviewLinks } from './preview-links'
import { ChangesSinceSubmission } from './changes-since-submission'
import { describePortalError } from '@/components/portal-error'
import { WorkflowPanel } from './workflow-panel'
import { LeaseBanner } from './lease-banner'
import { useEditLease, type ArticleChange } from './use-edit-lease'
import styles from './articles.module.css'
import { changeIsNews, type PageWrite } from '@/lib/articles/change-notice'

/**
 * This page's requests that write the article's version (a save, a move, a restore: each is sent
 * with the version it replaces), from the page's mutation cache, for changeIsNews.
 */
function pageWrites(queryClient: QueryClient, articleId: string): PageWrite[] {
  return queryClient
    .getMutationCache()
    .getAll()
    .flatMap((mutation): PageWrite[] => {
      const sent = mutation.state.variables as { article_id?: unknown; version?: unknown } | undefined
      if (!sent || sent.article_id !== articleId || typeof sent.version !== 'number') return []
      if (mutation.state.status === 'pending') return [{ state: 'pending' }]
      if (mutation.state.status !== 'success') return [{ state: 'failed' }]
      const answer = mutation.state.data as { version?: unknown; article?: { version?: unknown } } | undefined
      const made = answer?.version ?? answer?.article?.version
      return typeof made === 'number' ? [{ state: 'done', from: sent.version, version: made }] : [{ state: 'failed' }]
    })
}

/** One article: the editor, its workflow moves and its history. */
export function ArticleWorkspace({ articleId, userId, role, justCreated }: { articleId: string; userId: string; role: Role; justCreated: boolean }) {
  const trpc = useTRPC()
  const queryClient = useQueryClient()
  const [dirty, setDirty] = useState(false)
  const current = useQuery(trpc.articles.get.queryOptions({ article_id: articleId }))
  const options = useQuery(trpc.articles.filterOptions.queryOptions(undefined, { staleTime: 60_000 }))
  const history = useQuery(trpc.articles.history.queryOptions({ article_id: articleId }))
  const [underneath, setUnderneath] = useState<ArticleChange | null>(null)

  // A change made elsewhere (another save, a move, a publication) is fetched at once; the form
  // takes it when nothing is being typed, and otherwise keeps what is typed (a save then offers both).
  const onChange = useCallback(
    (change: ArticleChange) => {
      // Said on the page unless this page made it (its own save or move, often seen by the watch
      // before its own answer): a colleague's change and this person's own from another tab alike.
      const show = () => setUnderneath((shown) => (shown && shown.version > change.version ? shown : change))
      const verdict = changeIsNews(change.version, pageWrites(queryClient, articleId))
      if (verdict === true) show()
      if (verdict === 'wait') {
        const mutations = queryClient.getMutationCache()
        const unsubscribe = mutations.subscribe(() => {
          const settled = changeIsNews(change.version, pageWrites(queryClient, articleId))
          if (settled === 'wait') return
          unsubscribe()
          if (settled) show()
        })
      }
      void queryClient.invalidateQueries(trpc.articles.get.queryFilter({ article_id: articleId }))
      void queryClient.invalidateQueries(trpc.articles.history.queryFilter({ article_id: articleId }))
      void queryClient.invalidateQueries(trpc.articles.revisions.pathFilter())
      void queryClient.invalidateQueries(trpc.articles.notes.pathFilter())
    },
    [queryClient, trpc, articleId],
  )
  const lease = useEditLease(articleId, userId, {
    editable: Boolean(current.data && !current.data.readOnlyReason),
    shownVersion: current.data?.article.version,
    openedLock: current.data?.article.lock,
    onChange,
  })
  const { dirtyChanged } = lease
  const onDirtyChange = useCallback(
    (edited: boolean) => {
      setDirty(edited)
      dirtyChanged(edited)
    },
    [dirtyChanged],
  )

  const breadcrumb = (
    <p className={styles.breadcrumb}>
      <Link href="/articles">← All articles</Link>
    </p>
  )

  if (current.isError || options.isError) {
    const failure = describePortalError(current.error ?? options.error)
    return (
      <section>
        {breadcrumb}
        <h1>{failure.code === 'NOT_FOUND' ? 'Article not found' : 'The article could not be loaded'}</h1>
        <p role="alert" className="alert error">
          {failure.message}
        </p>
      </section>
    )
  }
  if (!current.data || !options.data) {
    return (
      <section>
        {breadcrumb}
        <p role="status">Loading the article…</p>
      </section>
    )
  }

  const { article, moves, noMovesReason, canManageSchedule, canApproveAndPublish, scheduleWarning } = current.data
  // Someone else's lease makes the page read-only too, until the person takes over.
  const leaseReason =
    lease.state.status === 'held' || lease.state.status === 'reading' || lease.state.status === 'lost'
      ? `${lease.state.status === 'lost' ? lease.state.taker.name : (lease.state.lock?.holder_name ?? 'Someone else')} is editing this article; ${lease.state.status === 'lost' ? (lease.state.taker.lapsed ? 'they started after your hold lapsed' : 'they took it over') : 'take over to edit it'}.`
      : null
  // The lease banner above says who edits: the form and the moves do not say it again.
  const leaseExplained = leaseReason !== null && !current.data.readOnlyReason
  const readOnlyReason = current.data.readOnlyReason ?? leaseReason
  const authorName = options.data.authors.find((author) => author.id === article.author_id)?.name
  return (
    <section aria-labelledby="article-heading">
      {breadcrumb}
      <h1 id="article-heading">{article.headline}</h1>
      <p className={styles.breadcrumb}>
        <Link href={`/articles/${encodeURIComponent(articleId)}/preview`} data-testid="open-preview">
          Preview: see it as readers will →
        </Link>
      </p>
      {justCreated && (
        <p role="status" className="alert">
          Draft created. Keep editing, and submit it for review when it is ready.
        </p>
      )}
      <LeaseBanner state={lease.state} notice={lease.notice} onTakeOver={lease.takeOver} onReadOnly={lease.readOnly} />
      {underneath && underneath.version === article.version && (
        <p role="status" className="alert" data-testid="changed-underneath">
          {underneath.notice} This is now version {article.version}.
          {dirty ? ' Your unsaved edits are kept: saving shows their changes beside yours.' : ''}
        </p>
      )}
      <ChangesSinceSubmission article={article} history={history.data} />
      <div className={styles.workspace}>
        <ArticleForm
          article={article}
          departments={options.data.departments}
          onDirtyChange={onDirtyChange}
          readOnlyReason={readOnlyReason}
          readOnlyExplained={leaseExplained}
          keepTyped={lease.state.status === 'lost'}
          onLocked={lease.recheck}
        />
        <WorkflowPanel
          article={article}
          moves={moves}
          noMovesReason={noMovesReason}
          canManageSchedule={canManageSchedule}
          scheduleWarning={scheduleWarning}
          canApproveAndPublish={canApproveAndPublish}
          role={role}
          authorName={authorName}
          blocked={dirty}
          blockedReason={leaseExplained ? 'Moves wait until you edit it yourself (see above).' : leaseReason}
        />
      </div>
      {current.data.canPreviewOnSite && <PreviewLinks articleId={articleId} />}
      <ArticleNotes articleId={articleId} />
      <ArticleHistory
        entries={history.data}
        article={article}
        loading={history.isPending}
        restoreBlockedReason={readOnlyReason ?? (dirty ? 'Save or discard your edits before restoring a version.' : null)}
      />
    </section>
  )
}
