import { toArticleRecord } from '../articles/article-record.ts'
import { recordChangesByItself, type ArticleWithLock } from '../articles/get-article.ts'
import { renderJson } from './conditional-response.ts'
import { articleEtag } from './resource-headers.ts'
import type { CachedBody } from './response-cache.ts'

/**
 * One article's answer as a GET of it gives it and the response cache keeps it: its record, its
 * version as ETag, and marked `transient` (served, not kept) while the record can change with no
 * write to the article (recordChangesByItself: a live edit lease). Every door that caches an
 * article's answer asks here, so none keeps one showing a lease.
 */
export function renderedArticle(article: ArticleWithLock): CachedBody {
  return Object.assign(renderJson(toArticleRecord(article), articleEtag(article)), { transient: recordChangesByItself(article) })
}
