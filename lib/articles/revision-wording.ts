import type { RevisionRecord } from './revision-schemas.ts'

// One place says how the portal names versions and revisions, so no two screens disagree: the
// article's version is what If-Match and the status box name (moves raise it too); a revision
// is a content version, numbered 1, 2, 3… on its own, and names the article version it produced.

type RevisionNames = Pick<RevisionRecord, 'number' | 'version' | 'fields' | 'restored_from_revision_number'>

export const revisionFieldNames: Record<RevisionRecord['fields'][number], string> = {
  headline: 'headline',
  lede: 'lede',
  body: 'text',
  department_id: 'department',
  tags: 'tags',
  author_id: 'author',
}

export function revisionName(revision: Pick<RevisionRecord, 'number'>): string {
  return `Revision ${revision.number}`
}

/** What a revision changed, and whether it was a restore: "Restored from revision 1 (headline, lede)". */
export function revisionChange(revision: RevisionNames): string {
  const fields = revision.fields.map((field) => revisionFieldNames[field]).join(', ')
  if (revision.restored_from_revision_number !== null) return `Restored from revision ${revision.restored_from_revision_number} (${fields})`
  return revision.number === 1 ? 'Created' : fields
}

export function savedMessage(articleVersion: number): string {
  return `Saved. This is now version ${articleVersion}.`
}

export function restoredMessage(restored: Pick<RevisionRecord, 'number'>, articleVersion: number, leftOutMediaIds: readonly string[] = []): string {
  const leftOut = leftOutMediaIds.length > 0 ? ` Left out, as the library no longer has them: ${leftOutMediaIds.map((id) => `the image ${id}`).join(', ')}.` : ''
  return `Restored revision ${restored.number} as a new revision. This is now version ${articleVersion}.${leftOut}`
}

/** How a restore names a figure it left out (body_removed), and the image ids read back from those names. */
export const leftOutFigure = (mediaId: string) => `figure of ${mediaId} (deleted from the media library)`
export const leftOutMediaIds = (bodyRemoved: readonly string[]): string[] => bodyRemoved.flatMap((part) => /^figure of (med_[0-9a-z]+) \(deleted from the media library\)$/.exec(part)?.[1] ?? [])

/** "Revision 2 (version 3) → revision 5 (version 9, current)". */
export function comparisonTitle(before: RevisionNames, after: RevisionNames, currentNumber: number): string {
  const side = (revision: RevisionNames) => `revision ${revision.number} (version ${revision.version}${revision.number === currentNumber ? ', current' : ''})`
  const text = `${side(before)} → ${side(after)}`
  return text.charAt(0).toUpperCase() + text.slice(1)
}

/** The older one first, whichever order they were picked in. */
export function inReadingOrder<Revision extends Pick<RevisionRecord, 'number'>>(a: Revision, b: Revision): [Revision, Revision] {
  return a.number <= b.number ? [a, b] : [b, a]
}
