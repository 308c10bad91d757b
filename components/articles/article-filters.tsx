'use client'

import Link from 'next/link'
import { useRouter } from 'next/navigation'
import { useRef, useState, type FormEvent } from 'react'
import { apiStatuses, type ApiStatus } from '@/lib/articles/article-status'
import type { ArticleFilterOptions } from '@/lib/articles/article-options'
import { isoToLocalDate, localDayStartIso } from '@/lib/time/local-datetime'
import { listHref, pageSizes, type ListParams } from './article-list-params'
import { statusLabels } from './status-badge'
import styles from './articles.module.css'

/**
 * The list's filters. Applying them navigates to the list's URL, so the browser's history
 * and shared links work. "Published" dates are whole days in the reader's zone: from the
 * start of the first day to the end of the last.
 */
export function ArticleFilters({ params, options }: { params: ListParams; options: ArticleFilterOptions | undefined }) {
  const router = useRouter()
  const [dateError, setDateError] = useState<string | null>(null)
  const toRef = useRef<HTMLInputElement>(null)
  // On a phone the form folds behind a Filters button (CSS shows the button only there), so the
  // list starts near the top; filters in use are counted on the button.
  const [open, setOpen] = useState(false)
  const inUse = [params.status, params.department_id, params.author_id, params.tag, params.published_after, params.published_before].filter(Boolean).length

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    const text = (name: string) => String(form.get(name) ?? '').trim()
    const from = text('published_from')
    const to = text('published_to')
    if (from && to && to < from) {
      setDateError('“Published to” must be the same day as “Published from” or later.')
      toRef.current?.focus()
      return
    }
    setDateError(null)
    router.push(
      listHref({
        q: params.q,
        status: (text('status') || undefined) as ApiStatus | undefined,
        department_id: text('department_id') || undefined,
        author_id: text('author_id') || undefined,
        tag: text('tag') || undefined,
        published_after: (from && localDayStartIso(from)) || undefined,
        published_before: (to && localDayStartIso(to, 1)) || undefined,
        limit: Number(text('limit')) || undefined,
        offset: 0,
      }),
    )
  }

  return (
    <div className={styles.filterFold} data-open={open || Boolean(dateError)}>
    <button type="button" className={`secondary ${styles.filterToggle}`} aria-expanded={open} aria-controls="article-filters" onClick={() => setOpen(!open)}>
      Filters{inUse > 0 && ` (${inUse} in use)`}
    </button>
    <form id="article-filters" role="search" aria-label="Filter articles" className={`card ${styles.filters}`} onSubmit={onSubmit} noValidate>
      <div className={styles.filterGrid}>
        <div>
          <label htmlFor="filter-status">Status</label>
          <select id="filter-status" name="status" defaultValue={params.status ?? ''}>
            <option value="">Any status</option>
            {apiStatuses.map((status) => (
              <option key={status} value={status}>
                {statusLabels[status]}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="filter-department">Department</label>
          <select id="filter-department" name="department_id" defaultValue={params.department_id ?? ''}>
            <option value="">Any department</option>
            {options?.departments.map((department) => (
              <option key={department.id} value={department.id}>
                {department.name}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="filter-author">Author</label>
          <select id="filter-author" name="author_id" defaultValue={params.author_id ?? ''}>
            <option value="">Anyone</option>
            {options?.authors.map((author) => (
              <option key={author.id} value={author.id}>
                {author.name}
                {!author.active && ' (deactivated)'}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="filter-tag">Tag</label>
          <input id="filter-tag" name="tag" type="text" defaultValue={params.tag ?? ''} autoComplete="off" />
        </div>
        <div>
          <label htmlFor="filter-published-from">Published from</label>
          <input
            id="filter-published-from"
            name="published_from"
            type="date"
            defaultValue={params.published_after ? (isoToLocalDate(params.published_after) ?? '') : ''}
          />
        </div>
        <div>
          <label htmlFor="filter-published-to">Published to</label>
          <input
            id="filter-published-to"
            name="published_to"
            type="date"
            ref={toRef}
            aria-invalid={!!dateError}
            aria-describedby={dateError ? 'filter-published-to-error' : undefined}
            // published_before is the next day's midnight; the last day shown is the one before it.
            defaultValue={params.published_before ? (isoToLocalDate(params.published_before, -1) ?? '') : ''}
          />
          {dateError && (
            <p id="filter-published-to-error" className="field-error">
              {dateError}
            </p>
          )}
        </div>
        <div>
          <label htmlFor="filter-limit">Per page</label>
          <select id="filter-limit" name="limit" defaultValue={String(params.limit)}>
            {pageSizes.map((size) => (
              <option key={size} value={size}>
                {size}
              </option>
            ))}
          </select>
        </div>
      </div>
      <div className={styles.actions}>
        <button type="submit">Apply filters</button>
        <Link href="/articles" className={styles.linkButton}>
          Clear filters
        </Link>
      </div>
    </form>
    </div>
  )
}
