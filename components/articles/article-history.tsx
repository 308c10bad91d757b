'use client'

import { isMove, type ArticleHistoryItem } from '@/lib/articles/history-entry'
import type { ArticleRecord } from '@/lib/articles/article-schemas'
import { ArticleRevisions } from './article-revisions'
import { LocalTime } from '@/components/local-time'
import { statusLabels } from './status-badge'
import styles from './articles.module.css'

/** The row that set the article's current schedule: the last scheduling row, if it still matches. */
function pendingScheduleRow(entries: ArticleHistoryItem[], article: ArticleRecord): string | null {
  const last = entries.filter(isMove).findLast((entry) => entry.publish_at !== null)
  return last && !last.schedule_cancelled && last.publish_at === article.scheduled_publish_at ? last.id : null
}

export function ArticleHistory({
  entries,
  article,
  loading,
  restoreBlockedReason = null,
}: {
  entries: ArticleHistoryItem[] | undefined
  article: ArticleRecord
  loading: boolean
  restoreBlockedReason?: string | null
}) {
  const pending = entries ? pendingScheduleRow(entries, article) : null
  return (
    <section className={styles.history} aria-labelledby="history-heading">
      <h2 id="history-heading">History</h2>
      {loading && <p className="muted">Loading the history…</p>}
      {entries && entries.length === 0 && <p className="muted">No workflow moves yet: the article is where it started.</p>}
      {entries && entries.length > 0 && (
        <div className={styles.scrollBox}>
        <table data-testid="article-history">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">Change</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr key={entry.id}>
                <td data-label="When">
                  <LocalTime iso={entry.at} />
                </td>
                <td data-label="Who">{entry.actor?.name ?? 'The system (scheduled publication)'}</td>
                <td data-label="Change">
                  {!isMove(entry) ? (
                    entry.note
                  ) : entry.schedule_cancelled && entry.publish_at ? (
                    <>
                      Cancelled the publication scheduled for <LocalTime iso={entry.publish_at} />
                    </>
                  ) : entry.publish_at ? (
                    <>
                      Scheduled for <LocalTime iso={entry.publish_at} />
                      {entry.id === pending ? ' (pending)' : ' (no longer pending)'}
                    </>
                  ) : (
                    <>
                      {statusLabels[entry.from_state]} → {statusLabels[entry.to_state]}
                    </>
                  )}
                  {isMove(entry) && entry.note && <q className={styles.moveNote}>{entry.note}</q>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        </div>
      )}
      <ArticleRevisions article={article} blockedReason={restoreBlockedReason} />
    </section>
  )
}
