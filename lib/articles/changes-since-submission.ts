import { isMove, type ArticleHistoryEntry, type ArticleHistoryItem } from './history-entry.ts'
import { revisionFields, type RevisionRecord } from './revision-schemas.ts'

export type ChangesSinceSubmission = {
  submittedAt: string
  submittedBy: ArticleHistoryEntry['actor']
  /** The content as it was submitted. */
  submitted: RevisionRecord
  /** Content changes made after the submission, newest first. */
  later: RevisionRecord[]
  /** Every field those changes set, in the order revisions list fields. */
  fields: RevisionRecord['fields']
}

// The submission's transition time comes from the application and a revision's from the
// database; a revision written with the submission (an article created in review) must count
// as submitted even if the two clocks differ by a little.
const clockToleranceMs = 1_000

/**
 * What an editor deciding on a review needs to know: what changed since the article was last
 * submitted. Null unless the article is in review and its content changed after the submission.
 * `history` is oldest first and `revisions` newest first, as their queries return them.
 */
export function changesSinceSubmission(status: string, history: ArticleHistoryItem[], revisions: RevisionRecord[]): ChangesSinceSubmission | null {
  if (status !== 'in-review') return null
  const submission = history.filter(isMove).findLast((entry) => entry.to_state === 'in-review' && !entry.schedule_cancelled)
  // No move into review means it was created in review: its first revision is what was submitted.
  const submitted = submission
    ? revisions.find((revision) => Date.parse(revision.created_at) <= Date.parse(submission.at) + clockToleranceMs)
    : revisions.find((revision) => revision.version === 1)
  if (!submitted) return null
  const later = revisions.filter((revision) => revision.version > submitted.version)
  if (later.length === 0) return null
  const changed = new Set(later.flatMap((revision) => revision.fields))
  const fields = revisionFields.filter((field) => changed.has(field))
  return { submittedAt: submission?.at ?? submitted.created_at, submittedBy: submission ? submission.actor : submitted.actor, submitted, later, fields }
}
