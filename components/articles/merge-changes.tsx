'use client'

import { useState } from 'react'
import { htmlToText, wordDiff } from '@/lib/text/word-diff'
import type { ArticleFormInput } from './article-form-schema'
import styles from './articles.module.css'

const fieldNames: Partial<Record<keyof ArticleFormInput, string>> = { headline: 'Headline', slug: 'URL slug', lede: 'Lede', body: 'Body', department_id: 'Department', tags: 'Tags' }

/** The fields where what is typed differs from the newer saved version. */
export function conflictingFields(mine: ArticleFormInput, theirs: ArticleFormInput): (keyof ArticleFormInput)[] {
  return (Object.keys(fieldNames) as (keyof ArticleFormInput)[]).filter((field) => (mine[field] ?? '') !== (theirs[field] ?? ''))
}

const asText = (field: keyof ArticleFormInput, value: string | null | undefined) => (field === 'body' ? htmlToText(value ?? '') : (value ?? ''))

/**
 * A save met a newer version: for each field where the two differ, what the other person's
 * version has against what this editor typed (a word diff: struck is only yours, underlined only
 * theirs), and a choice per field. Nothing typed is lost: "Keep mine" is the default.
 */
export function MergeChanges({
  mine,
  theirs,
  theirVersion,
  onApply,
}: {
  mine: ArticleFormInput
  theirs: ArticleFormInput
  theirVersion: number
  onApply: (keptMine: (keyof ArticleFormInput)[]) => void
}) {
  const fields = conflictingFields(mine, theirs)
  const [choice, setChoice] = useState<Partial<Record<keyof ArticleFormInput, 'mine' | 'theirs'>>>({})
  const chosen = (field: keyof ArticleFormInput) => choice[field] ?? 'mine'
  return (
    <div data-testid="merge-changes">
      <p>
        Version {theirVersion} differs from what you typed in {fields.length === 1 ? 'one field' : `${fields.length} fields`}. Struck text is only in yours, underlined text only in
        theirs. Choose per field, then save again.
      </p>
      {fields.map((field) => (
        <fieldset key={field} className={styles.mergeField}>
          <legend>{fieldNames[field]}</legend>
          <p className={styles.diff} data-testid={`merge-diff-${field}`}>
            {wordDiff(asText(field, mine[field]), asText(field, theirs[field])).map((part, index) =>
              part.kind === 'same' ? <span key={index}>{part.text}</span> : part.kind === 'removed' ? <del key={index}>{part.text}</del> : <ins key={index}>{part.text}</ins>,
            )}
          </p>
          <label>
            <input type="radio" name={`merge-${field}`} checked={chosen(field) === 'mine'} onChange={() => setChoice({ ...choice, [field]: 'mine' })} /> Keep mine
          </label>{' '}
          <label>
            <input type="radio" name={`merge-${field}`} checked={chosen(field) === 'theirs'} onChange={() => setChoice({ ...choice, [field]: 'theirs' })} /> Take theirs
          </label>
        </fieldset>
      ))}
      <button
        type="button"
        onClick={() => onApply(fields.filter((field) => chosen(field) === 'mine'))}
      >
        Use these choices
      </button>
    </div>
  )
}
