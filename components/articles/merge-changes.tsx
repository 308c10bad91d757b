'use client'

import { useId, useState } from 'react'
import { htmlToText, wordDiff } from '@/lib/text/word-diff'
import { conflictingText, type MergeResult, type Side } from '@/lib/articles/three-way-merge'
import type { ArticleFormInput } from './article-form-schema'
import styles from './articles.module.css'

export type FormField = keyof ArticleFormInput

export const mergeFieldNames: Record<FormField, string> = { headline: 'Headline', slug: 'URL slug', lede: 'Lede', body: 'Body', department_id: 'Department', featured_media_id: 'Featured image', tags: 'Tags' }

const asText = (field: FormField, value: string) => (field === 'body' ? htmlToText(value) : value)

/**
 * A save met a newer version and both people changed the same field(s) differently: for each,
 * a word diff of the two changes (struck: only in yours; underlined: only in theirs) and a choice
 * that starts unmade, so nothing is thrown away by accepting defaults. Fields only one side
 * changed were already merged and are listed, not asked about. For the body, only the paragraphs
 * both changed are shown and chosen; the paragraphs only one side changed are kept either way.
 */
export function MergeChanges({
  merge,
  theirVersion,
  what,
  onApply,
}: {
  merge: MergeResult<FormField>
  theirVersion: number
  /** What happened since the version the editor started from (the server's words). */
  what: string
  onApply: (choices: Record<FormField, Side>) => void
}) {
  const headingId = useId()
  const [choice, setChoice] = useState<Partial<Record<FormField, Side>>>({})
  const fields = merge.conflicts
  const settled = (Object.keys(merge.fields) as FormField[]).filter((field) => ['mine', 'theirs', 'combined'].includes(merge.fields[field].outcome))
  const undecided = fields.filter((field) => !choice[field])
  const settledWords = (field: FormField) => {
    const outcome = merge.fields[field].outcome
    return `${mergeFieldNames[field]} (${outcome === 'mine' ? 'yours' : outcome === 'theirs' ? 'theirs' : 'both changes, different paragraphs'})`
  }
  return (
    <section className={`card ${styles.mergePanel}`} aria-labelledby={headingId} data-testid="merge-changes">
      <h2 id={headingId}>Choose between your change and theirs</h2>
      <p>
        Someone saved version {theirVersion} while you were editing. {what}
      </p>
      {settled.length > 0 && <p data-testid="merge-settled">Already combined, no choice needed: {settled.map(settledWords).join(', ')}.</p>}
      <p>
        You both changed {fields.length === 1 ? 'one field' : `${fields.length} fields`} differently. For each, choose which change to keep: struck text is only in yours,
        underlined text only in theirs.
      </p>
      {fields.map((field) => (
        <fieldset key={field} className={styles.mergeField}>
          <legend>{mergeFieldNames[field]}</legend>
          <p className={styles.diff} data-testid={`merge-diff-${field}`}>
            {wordDiff(asText(field, conflictingText(merge.fields[field], 'mine')), asText(field, conflictingText(merge.fields[field], 'theirs'))).map((part, index) =>
              part.kind === 'same' ? <span key={index}>{part.text}</span> : part.kind === 'removed' ? <del key={index}>{part.text}</del> : <ins key={index}>{part.text}</ins>,
            )}
          </p>
          {field === 'body' && merge.fields.body.outcome === 'conflict' && merge.fields.body.chunks && (
            <p className={styles.hint}>Only the paragraphs you both changed are shown; the others keep both of your changes.</p>
          )}
          <div className={styles.mergeChoices}>
            <label className={styles.mergeChoice}>
              <input type="radio" name={`merge-${field}`} checked={choice[field] === 'mine'} onChange={() => setChoice({ ...choice, [field]: 'mine' })} /> Keep my change
            </label>
            <label className={styles.mergeChoice}>
              <input type="radio" name={`merge-${field}`} checked={choice[field] === 'theirs'} onChange={() => setChoice({ ...choice, [field]: 'theirs' })} /> Take their change
            </label>
          </div>
        </fieldset>
      ))}
      <button type="button" disabled={undecided.length > 0} aria-describedby={`${headingId}-left`} onClick={() => onApply(choice as Record<FormField, Side>)}>
        Use these choices
      </button>
      <p id={`${headingId}-left`} className={styles.hint}>
        {undecided.length > 0 ? `Choose for ${undecided.map((field) => mergeFieldNames[field]).join(', ')} first.` : 'Then save to keep the combined article.'}
      </p>
    </section>
  )
}
