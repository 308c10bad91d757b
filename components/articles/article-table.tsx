'use client'

import Link from 'next/link'
import type { ArticleFilterOptions } from '@/lib/articles/article-options'
import type { ArticleRecord } from '@/lib/articles/article-schemas'
import { LocalTime } from '@/components/local-time'
import { StatusBadge } from './status-badge'
import styles from './articles.module.css'

type SnippetPart = { text: string; matched: boolean }
export type ListedArticle = ArticleRecord & { match?: { rank: number; snippet: SnippetPart[] } | null }

export function ArticleTable({ items, options, busy, searching = false }: { items: ListedArticle[]; options: ArticleFilterOptions | undefined; busy: boolean; searching?: boolean }) {
  const departments = new Map(options?.departments.map((department) => [department.id, department.name]))
  const authors = new Map(options?.authors.map((author) => [author.id, author.name]))
  return (
    <div className={styles.tableWrap}>
      <table aria-busy={busy} className={styles.table}>
        <caption className={styles.visuallyHidden}>{searching ? 'Articles matching the search, most relevant first' : 'Articles, most recently published first'}</caption>
        <thead>
          <tr>
            <th scope="col">Headline</th>
            <th scope="col">Status</th>
            <th scope="col">Department</th>
            <th scope="col">Author</th>
            <th scope="col">Published or scheduled</th>
            <th scope="col">Tags</th>
          </tr>
        </thead>
        <tbody>
          {items.map((article) => (
            <tr key={article.article_id}>
              <td className={styles.headlineCell}>
                <Link href={`/articles/${article.article_id}`}>{article.headline}</Link>
                {article.match && article.match.snippet.length > 0 && (
                  // React escapes each piece; only the matched words become <mark>.
                  <p className={styles.snippet} data-testid="search-snippet">
                    {article.match.snippet.map((part, index) => (part.matched ? <mark key={index}>{part.text}</mark> : <span key={index}>{part.text}</span>))}
                  </p>
                )}
                {article.url && (
                  <a href={article.url} title={article.url} className={styles.publicUrl} target="_blank" rel="noopener noreferrer">
                    {article.url}
                    <span className={styles.visuallyHidden}> (public page, opens in a new tab)</span>
                  </a>
                )}
              </td>
              <td data-label="Status">
                <StatusBadge status={article.status} scheduled={article.scheduled_publish_at !== null} />
              </td>
              <td data-label="Department">{article.department_id ? (departments.get(article.department_id) ?? '…') : <span className="muted">None</span>}</td>
              <td data-label="Author">{authors.get(article.author_id) ?? '…'}</td>
              <td data-label="Published or scheduled">
                {article.scheduled_publish_at ? (
                  <>
                    Scheduled for <LocalTime iso={article.scheduled_publish_at} />
                  </>
                ) : article.published_at ? (
                  <>
                    {article.status !== 'published' && 'Last published '}
                    <LocalTime iso={article.published_at} />
                  </>
                ) : (
                  <span className="muted">Not published</span>
                )}
              </td>
              <td data-label="Tags">{article.tags.length > 0 ? article.tags.join(', ') : <span className="muted">None</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
