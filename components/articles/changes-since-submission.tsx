'use client'

import { useQuery } from '@tanstack/react-query'
import type { ArticleHistoryItem } from '@/lib/articles/history-entry'
import type { ArticleRecord } from '@/lib/articles/article-schemas'
import { changesSinceSubmission } from '@/lib/articles/changes-since-submission'
import { useTRPC } from '@/components/trpc-context'
import { fieldNames, RevisionComparison } from './article-revisions'
import { LocalTime } from '@/components/local-time'
import styles from './articles.module.css'

/** For an article in review: what changed after it was submitted, so a decision is made on the latest text. */
export function ChangesSinceSubmission({ article, history }: { article: ArticleRecord; history: ArticleHistoryItem[] | undefined }) {
  const trpc = useTRPC()
  // The same query as the revisions list below, so it is read once.
  const revisions = useQuery(trpc.articles.revisions.queryOptions({ article_id: article.article_id, limit: 100, offset: 0 }, { enabled: article.status === 'in-review' }))
  const changes = history && revisions.data ? changesSinceSubmission(article.status, history, revisions.data.items) : null
  if (!changes) return null
  const latest = changes.later[0]!
  return (
    <section className={`alert ${styles.sinceSubmission}`} aria-labelledby="since-submission-heading" data-testid="changes-since-submission">
      <h2 id="since-submission-heading">Changed since it was submitted for review</h2>
      <p>
        Submitted{changes.submittedBy && ` by ${changes.submittedBy.name}`} <LocalTime iso={changes.submittedAt} /> as revision {changes.submitted.number} (version {changes.submitted.version}). Since then:{' '}
        {changes.fields.map((field) => fieldNames[field]).join(', ')} ({changes.later.length === 1 ? 'one change' : `${changes.later.length} changes`}, the latest
        {latest.actor && ` by ${latest.actor.name}`} <LocalTime iso={latest.created_at} />
        ).
      </p>
      <details>
        <summary>Show what changed</summary>
        <RevisionComparison revision={changes.submitted} article={article} />
      </details>
    </section>
  )
}
