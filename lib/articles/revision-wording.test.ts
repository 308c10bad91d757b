import { describe, expect, it } from 'vitest'
import { toRevisionRecord } from './article-revisions.ts'
import { comparisonTitle, inReadingOrder, leftOutFigure, leftOutMediaIds, restoredMessage, revisionChange, revisionName, savedMessage } from './revision-wording.ts'

const row = (overrides: Partial<Parameters<typeof toRevisionRecord>[0]> = {}) =>
  toRevisionRecord({
    id: 'rev_b',
    articleId: 'art_1',
    version: 9,
    number: 4,
    actor: { id: 'usr_1', name: 'Ed' },
    restoredFrom: null,
    createdAt: new Date('2026-11-26T00:00:00Z'),
    fields: ['headline', 'body'],
    headline: 'H',
    lede: null,
    body: null,
    departmentId: null,
    tags: [],
    authorId: 'usr_1',
    ...overrides,
  })

describe('a revision record', () => {
  it('carries its own number and, separately, the article version it produced', () => {
    expect(row()).toMatchObject({ number: 4, version: 9, restored_from_revision_id: null, restored_from_revision_number: null })
  })

  it('names the revision a restore put back, by id and number', () => {
    expect(row({ restoredFrom: { id: 'rev_a', number: 1 } })).toMatchObject({ restored_from_revision_id: 'rev_a', restored_from_revision_number: 1 })
  })
})

describe('how the portal names versions and revisions', () => {
  it('calls a revision by its number, never by the article version', () => {
    expect(revisionName(row())).toBe('Revision 4')
    expect(revisionChange(row())).toBe('headline, text')
  })

  it('says a restore restored from revision N, and the first revision created the article', () => {
    expect(revisionChange(row({ restoredFrom: { id: 'rev_a', number: 1 } }))).toBe('Restored from revision 1 (headline, text)')
    expect(revisionChange(row({ number: 1, version: 1, fields: ['headline', 'lede', 'body', 'department_id', 'tags', 'author_id'] }))).toBe('Created')
  })

  it('names the article version in save and restore messages', () => {
    expect(savedMessage(3)).toBe('Saved. This is now version 3.')
    expect(restoredMessage(row({ number: 1 }), 10)).toBe('Restored revision 1 as a new revision. This is now version 10.')
  })

  it('titles a comparison older first with each side’s article version, marking the current one', () => {
    const older = row({ number: 2, version: 3 })
    const newer = row({ number: 4, version: 9 })
    const [before, after] = inReadingOrder(newer, older)
    expect(comparisonTitle(before, after, 4)).toBe('Revision 2 (version 3) → revision 4 (version 9, current)')
    expect(comparisonTitle(before, after, 5)).toBe('Revision 2 (version 3) → revision 4 (version 9)')
  })
})

describe('a restore that left figures out', () => {
  it('names the images whose figures it left out, read back from body_removed', () => {
    const removed = ['<script>', leftOutFigure('med_0mx1o8stozj9t7tatnkjrqyev')]
    expect(leftOutMediaIds(removed)).toEqual(['med_0mx1o8stozj9t7tatnkjrqyev'])
    expect(restoredMessage({ number: 3 }, 9, leftOutMediaIds(removed))).toBe(
      'Restored revision 3 as a new revision. This is now version 9. Left out, as the library no longer has them: the image med_0mx1o8stozj9t7tatnkjrqyev.',
    )
    expect(restoredMessage({ number: 3 }, 9)).toBe('Restored revision 3 as a new revision. This is now version 9.')
  })
})
