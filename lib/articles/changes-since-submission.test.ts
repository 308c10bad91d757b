import { describe, expect, it } from 'vitest'
import type { ArticleHistoryEntry } from './article-history.ts'
import { changesSinceSubmission } from './changes-since-submission.ts'
import type { RevisionRecord } from './revision-schemas.ts'

const writer = { id: 'usr_writer', name: 'Writer' }
const move = (from: ArticleHistoryEntry['from_state'], to: ArticleHistoryEntry['to_state'], at: string): ArticleHistoryEntry => ({
  kind: 'move',
  id: `trn_${at}`,
  from_state: from,
  to_state: to,
  actor: writer,
  at,
  publish_at: null,
  schedule_cancelled: false,
  note: null,
})
const revision = (version: number, at: string, fields: RevisionRecord['fields'], headline = `v${version}`): RevisionRecord => ({
  revision_id: `rev_${version}`,
  article_id: 'art_1',
  number: version,
  version,
  actor: writer,
  created_at: at,
  fields,
  headline,
  lede: null,
  body: null,
  department_id: null,
  tags: [],
  author_id: writer.id,
  restored_from_revision_id: null,
  restored_from_revision_number: null,
})

describe('changesSinceSubmission', () => {
  const history = [move('draft', 'in-review', '2026-11-20T10:00:00.000Z'), move('in-review', 'draft', '2026-11-20T11:00:00.000Z'), move('draft', 'in-review', '2026-11-20T12:00:00.000Z')]

  it('names the revision submitted last and the fields changed after it', () => {
    const revisions = [
      revision(6, '2026-11-20T12:30:00.000Z', ['body']),
      revision(5, '2026-11-20T12:10:00.000Z', ['headline', 'tags']),
      revision(3, '2026-11-20T11:30:00.000Z', ['lede']),
      revision(1, '2026-11-20T09:00:00.000Z', ['headline', 'lede', 'body', 'department_id', 'tags', 'author_id']),
    ]
    const changes = changesSinceSubmission('in-review', history, revisions)
    expect(changes).toMatchObject({ submittedAt: '2026-11-20T12:00:00.000Z', submitted: { version: 3 }, fields: ['headline', 'body', 'tags'] })
    expect(changes!.later.map((later) => later.version)).toEqual([6, 5])
  })

  it('is null when nothing changed since the submission, or the article is not in review', () => {
    const revisions = [revision(3, '2026-11-20T11:30:00.000Z', ['lede']), revision(1, '2026-11-20T09:00:00.000Z', ['headline'])]
    expect(changesSinceSubmission('in-review', history, revisions)).toBeNull()
    expect(changesSinceSubmission('draft', history, [revision(4, '2026-11-20T13:00:00.000Z', ['body']), ...revisions])).toBeNull()
  })

  it('treats an article created in review as submitted with its first revision', () => {
    const revisions = [revision(2, '2026-11-20T10:05:00.000Z', ['lede']), revision(1, '2026-11-20T10:00:00.000Z', ['headline', 'body'])]
    expect(changesSinceSubmission('in-review', [], revisions)).toMatchObject({ submittedAt: '2026-11-20T10:00:00.000Z', submitted: { version: 1 }, fields: ['lede'] })
  })

  it('counts a revision written with the submission (created in review) as submitted despite clock skew', () => {
    const createdInReview = [move('draft', 'in-review', '2026-11-20T10:00:00.000Z')]
    const revisions = [revision(2, '2026-11-20T10:05:00.000Z', ['headline']), revision(1, '2026-11-20T10:00:00.400Z', ['headline', 'body'])]
    expect(changesSinceSubmission('in-review', createdInReview, revisions)).toMatchObject({ submitted: { version: 1 }, fields: ['headline'] })
  })
})
