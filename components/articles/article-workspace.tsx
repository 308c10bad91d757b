'use client'

import { useQuery } from '@tanstack/react-query'
import Link from 'next/link'
import { useState } from 'react'
import type { Role } from '@/lib/db/generated/enums'
import { useTRPC } from '@/components/trpc-provider'
import { ArticleForm } from './article-form'
import { ArticleHistory } from './article-history'
import { ChangesSinceSubmission } from './changes-since-submission'
import { describePortalError } from '@/components/portal-error'
import { WorkflowPanel } from './workflow-panel'
import styles from './articles.module.css'

/** One article: the editor, its workflow moves and its history. */
export function ArticleWorkspace({ articleId, role, justCreated }: { articleId: string; role: Role; justCreated: boolean }) {
  const trpc = useTRPC()
  const [dirty, setDirty] = useState(false)
  const current = useQuery(trpc.articles.get.queryOptions({ article_id: articleId }))
  const options = useQuery(trpc.articles.filterOptions.queryOptions(undefined, { staleTime: 60_000 }))
  const history = useQuery(trpc.articles.history.queryOptions({ article_id: articleId }))

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

  const { article, moves, noMovesReason, canManageSchedule, canApproveAndPublish, readOnlyReason } = current.data
  const authorName = options.data.authors.find((author) => author.id === article.author_id)?.name
  return (
    <section aria-labelledby="article-heading">
      {breadcrumb}
      <h1 id="article-heading">{article.headline}</h1>
      {justCreated && (
        <p role="status" className="alert">
          Draft created. Keep editing, and submit it for review when it is ready.
        </p>
      )}
      <ChangesSinceSubmission article={article} history={history.data} />
      <div className={styles.workspace}>
        <ArticleForm article={article} departments={options.data.departments} onDirtyChange={setDirty} readOnlyReason={readOnlyReason} />
        <WorkflowPanel
          article={article}
          moves={moves}
          noMovesReason={noMovesReason}
          canManageSchedule={canManageSchedule}
          canApproveAndPublish={canApproveAndPublish}
          role={role}
          authorName={authorName}
          blocked={dirty}
        />
      </div>
      <ArticleHistory
        entries={history.data}
        article={article}
        loading={history.isPending}
        restoreBlockedReason={readOnlyReason ?? (dirty ? 'Save or discard your edits before restoring a version.' : null)}
      />
    </section>
  )
}
