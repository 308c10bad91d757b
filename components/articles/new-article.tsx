'use client'

import { useQuery } from '@tanstack/react-query'
import Link from 'next/link'
import { useTRPC } from '@/components/trpc-context'
import { ArticleForm } from './article-form'
import { describePortalError } from '@/components/portal-error'
import styles from './articles.module.css'

export function NewArticle() {
  const trpc = useTRPC()
  const options = useQuery(trpc.articles.filterOptions.queryOptions(undefined, { staleTime: 60_000 }))
  return (
    <section aria-labelledby="new-article-heading">
      <p className={styles.breadcrumb}>
        <Link href="/articles">← All articles</Link>
      </p>
      <h1 id="new-article-heading">New article</h1>
      {options.isError && (
        <p role="alert" className="alert error">
          The departments could not be loaded: {describePortalError(options.error).message}
        </p>
      )}
      {/* The department select needs its options before the form sets its value. */}
      {options.data ? <ArticleForm article={null} departments={options.data.departments} /> : !options.isError && <p role="status">Loading…</p>}
    </section>
  )
}
