import type { Metadata } from 'next'
import Link from 'next/link'
import { getPortalActor, requirePortalUser } from '@/lib/auth/session'
import { previewArticle, type ArticlePreview } from '@/lib/articles/article-preview'
import { sanitizeBody } from '@/lib/articles/sanitize-body'
import { NotFoundError } from '@/lib/errors'
import { statusLabels } from '@/components/articles/status-badge'
import editorStyles from '@/components/articles/rich-text-editor.module.css'
import styles from '@/components/articles/article-preview.module.css'

// The body's images come from wherever the newsroom put them: their hosts learn nothing of the portal's addresses.
export const metadata: Metadata = { title: 'Preview', robots: { index: false }, referrer: 'no-referrer' }

type Props = { params: Promise<{ article_id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> }

/**
 * The article as the content API would publish it (headline, lede, byline, body, tags), for an
 * editor to read before it goes live: the public site's own preview page may not exist (a trial
 * has none), and the API answers JSON.
 */
export default async function ArticlePreviewPage({ params, searchParams }: Props) {
  await requirePortalUser()
  const actor = await getPortalActor()
  const [{ article_id: articleId }, search] = await Promise.all([params, searchParams])
  const revisionId = typeof search.revision === 'string' ? search.revision : undefined
  let preview: ArticlePreview | null = null
  try {
    preview = actor && (await previewArticle(actor, articleId, { revisionId }))
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error
  }
  const back = (
    <p>
      <Link href={`/articles/${encodeURIComponent(articleId)}`}>← Back to the article</Link>
    </p>
  )
  if (!preview) {
    return (
      <section aria-labelledby="page-heading">
        {back}
        <h1 id="page-heading">Nothing to preview</h1>
        <p role="alert" className="alert error">
          {revisionId ? 'This article or this revision of it does not exist in your newsroom.' : 'This article does not exist in your newsroom.'}
        </p>
      </section>
    )
  }
  const { article, byline, status, revision } = preview
  return (
    <section aria-labelledby="preview-banner-heading">
      {back}
      <div className={`alert ${styles.banner}`} data-testid="preview-banner">
        <h1 id="preview-banner-heading" className={styles.bannerHeading}>
          Preview{revision ? ` of revision ${revision.number}` : ''}: as readers will see it once published
        </h1>
        <span>
          Now {statusLabels[status].toLowerCase()}
          {status === 'published' && revision === null ? ': this is what is live.' : ': readers do not see this text yet.'}
        </span>
      </div>
      {/* What the content API answers for it, set as a page: sanitizeBody's output is the only HTML inserted. */}
      <article className={styles.page} data-testid="article-preview" lang="en">
        <header>
          <h2 className={styles.headline} data-testid="preview-headline">
            {article.headline}
          </h2>
          {article.lede && (
            <p className={styles.lede} data-testid="preview-lede">
              {article.lede}
            </p>
          )}
          <p className={styles.byline} data-testid="preview-byline">
            {byline ? `By ${byline}` : 'No byline: the author’s account was removed.'}
          </p>
        </header>
        {article.body ? (
          <div className={editorStyles.prose} data-testid="preview-body" dangerouslySetInnerHTML={{ __html: sanitizeBody(article.body) }} />
        ) : (
          <p className="muted">No body yet.</p>
        )}
        {article.tags.length > 0 && (
          <ul className={styles.tags} aria-label="Tags">
            {article.tags.map((tag) => (
              <li key={tag}>{tag}</li>
            ))}
          </ul>
        )}
      </article>
    </section>
  )
}
