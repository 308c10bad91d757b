import type { Article } from '../db/generated/client.ts'
import type { ArticleRecord } from './article-schemas.ts'
import { toApiStatus } from './article-status.ts'
import { currentSlug } from './article-address.ts'
import type { ArticleLock } from './edit-lease.ts'
import { sanitizeBody } from './sanitize-body.ts'
import { backfillState } from '../db/data-migrations/backfill-state.ts'

/** The article as the API and events show it. */
export function toArticleRecord(article: Article & { lock?: ArticleLock | null }): ArticleRecord {
  return {
    article_id: article.id,
    headline: article.headline,
    lede: article.lede,
    // While the body backfill runs (background-data-migrations.ts) a stored body may predate
    // sanitise-on-write: it is cleaned here on its way out, never served as stored.
    body: backfillState.bodiesMayBeUnclean && article.body !== null ? sanitizeBody(article.body) : article.body,
    department_id: article.departmentId,
    tags: article.tags,
    featured_media_id: article.featuredMediaId,
    status: toApiStatus(article.status),
    author_id: article.authorId,
    published_at: article.publishedAt?.toISOString() ?? null,
    scheduled_publish_at: article.scheduledPublishAt?.toISOString() ?? null,
    url: article.url,
    slug: currentSlug(article),
    previous_urls: article.previousUrls,
    created_at: article.createdAt.toISOString(),
    updated_at: article.updatedAt.toISOString(),
    version: article.version,
    // Only where the lease was read with the article (one article's GET, the lock endpoints).
    ...(article.lock !== undefined && { lock: article.lock }),
  }
}
