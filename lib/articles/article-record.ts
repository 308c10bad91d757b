import type { Article } from '../db/generated/client.ts'
import type { ArticleRecord } from './article-schemas.ts'
import { toApiStatus } from './article-status.ts'

/** The article as the API and events show it. */
export function toArticleRecord(article: Article): ArticleRecord {
  return {
    article_id: article.id,
    headline: article.headline,
    lede: article.lede,
    body: article.body,
    department_id: article.departmentId,
    tags: article.tags,
    status: toApiStatus(article.status),
    author_id: article.authorId,
    published_at: article.publishedAt?.toISOString() ?? null,
    scheduled_publish_at: article.scheduledPublishAt?.toISOString() ?? null,
    url: article.url,
    created_at: article.createdAt.toISOString(),
    updated_at: article.updatedAt.toISOString(),
    version: article.version,
  }
}

/** A strong ETag from the article's version, which every change increases. */
export function articleEtag(article: Pick<Article, 'version'>): string {
  return `"${article.version}"`
}

/**
 * Whether an If-Match header lets a change to this version go ahead: absent or `*` always
 * does; otherwise one of its (strong) ETags must be the article's current one.
 */
export function ifMatchSatisfied(header: string | null | undefined, version: number): boolean {
  if (header === null || header === undefined || header.trim() === '*') return true
  const current = articleEtag({ version })
  return header.split(',').some((tag) => tag.trim() === current)
}
