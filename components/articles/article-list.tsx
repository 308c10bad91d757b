'use client'

import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { liveListIntervalMs, liveListNote } from '@/components/live-list'
import Link from 'next/link'
import { useSearchParams } from 'next/navigation'
import { useTRPC } from '@/components/trpc-context'
import { ArticleFilters } from './article-filters'
import { ArticleSearchBox } from './article-search-box'
import { listHref, readListParams } from './article-list-params'
import { ArticleTable } from './article-table'
import { describePortalError } from '@/components/portal-error'
import styles from './articles.module.css'

export function ArticleList() {
  const trpc = useTRPC()
  const search = useSearchParams()
  const { params, ignored } = readListParams(search)
  const options = useQuery(trpc.articles.filterOptions.queryOptions(undefined, { staleTime: 60_000 }))
  const list = useQuery(trpc.articles.list.queryOptions(params, { placeholderData: keepPreviousData, refetchInterval: liveListIntervalMs }))

  const page = list.data
  const first = page && page.total > 0 ? page.offset + 1 : 0
  const last = page ? page.offset + page.items.length : 0
  const previousOffset = Math.max(0, params.offset - params.limit)

  return (
    <section aria-labelledby="articles-heading">
      <div className={styles.pageHeader}>
        <h1 id="articles-heading">Articles</h1>
        <Link href="/articles/new" className={styles.primaryLink}>
          New article
        </Link>
      </div>

      <ArticleSearchBox params={params} />
      <ArticleFilters key={`${search.toString()}|${options.data ? 'ready' : 'loading'}`} params={params} options={options.data} />

      {ignored.length > 0 && (
        <p className="alert warning" role="status">
          Ignored invalid {ignored.length === 1 ? 'filter' : 'filters'} in the address: {ignored.join(', ')}.
        </p>
      )}
      {list.isError && (
        <p className="alert error" role="alert">
          The articles could not be loaded: {describePortalError(list.error).message}
        </p>
      )}

      <p className={styles.summary} role="status" aria-live="polite">
        {list.isPending
          ? 'Loading articles…'
          : page && (page.total === 0 ? (params.q ? 'No articles match this search and these filters.' : 'No articles match these filters.') : `Showing ${first}–${last} of ${'total_is_estimate' in page && page.total_is_estimate ? `about ${page.total.toLocaleString('en')}` : page.total} articles.`)}
      </p>

      {page && page.items.length > 0 && <ArticleTable items={page.items} options={options.data} busy={list.isFetching && list.isPlaceholderData} searching={params.q !== undefined} />}

      {page && (
        <p className="muted" data-testid="live-list-note">
          {liveListNote}
        </p>
      )}

      {page && (page.offset > 0 || page.next_offset !== null) && (
        <nav aria-label="Pages" className={styles.pager}>
          {page.offset > 0 ? (
            <Link href={listHref({ ...params, offset: previousOffset })} rel="prev">
              ← Previous {params.limit}
            </Link>
          ) : (
            <span aria-disabled="true" className="muted">
              ← Previous
            </span>
          )}
          {page.next_offset !== null ? (
            <Link href={listHref({ ...params, offset: page.next_offset })} rel="next">
              Next {params.limit} →
            </Link>
          ) : (
            <span aria-disabled="true" className="muted">
              Next →
            </span>
          )}
        </nav>
      )}
    </section>
  )
}
