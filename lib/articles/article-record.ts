import type { Article } from '../db/generated/client.ts'
import type { ArticleRecord } from './article-schemas.ts'
import { toApiStatus, type ApiStatus } from './article-status.ts'
import { currentSlug } from './article-address.ts'
import type { ArticleLock } from './edit-lease.ts'
import { sanitizeBody } from './sanitize-body.ts'
import { backfillState } from '../db/data-migrations/backfill-state.ts'
import { isoTimestamp } from '../iso-timestamp.ts'

/** The article as the API and events show it. */
export function toArticleRecord(article: Article & { lock?: ArticleLock | null }): ArticleRecord {
  return recordOf(article, toApiStatus(article.status))
}

/** What a record shows of an article (lib/articles/article-rows.ts reads just these columns). */
export type RecordedArticle = Pick<Article, 'id' | 'headline' | 'lede' | 'body' | 'departmentId' | 'tags' | 'featuredMediaId' | 'authorId' | 'publishedAt' | 'scheduledPublishAt' | 'url' | 'slug' | 'previousUrls' | 'createdAt' | 'updatedAt' | 'version'>

/**
 * The record of a row read with its status as the API spells it (the database's label), as
 * toArticleRecord shows the article: without first copying the row into a Prisma-shaped
 * article, whose status toArticleRecord would spell back (a cold list page made 50 such copies
 * of 22 fields each, for the collector).
 */
export function storedArticleRecord(row: RecordedArticle & { status: ApiStatus }): ArticleRecord {
  return recordOf(row, row.status)
}

function recordOf(article: RecordedArticle & { lock?: ArticleLock | null }, status: ApiStatus): ArticleRecord {
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
    status,
    author_id: article.authorId,
    published_at: article.publishedAt ? isoTimestamp(article.publishedAt) : null,
    scheduled_publish_at: article.scheduledPublishAt ? isoTimestamp(article.scheduledPublishAt) : null,
    url: article.url,
    slug: currentSlug(article),
    previous_urls: article.previousUrls,
    created_at: isoTimestamp(article.createdAt),
    updated_at: isoTimestamp(article.updatedAt),
    version: article.version,
    // Only where the lease was read with the article (one article's GET, the lock endpoints).
    ...(article.lock !== undefined && { lock: article.lock }),
  }
}
