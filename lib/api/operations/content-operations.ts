import { z } from 'zod'
import { listArticlesQuerySchema } from '../../articles/article-schemas.ts'

/**
 * The public content API (/content/v1), declared once like the /v1 operations: what
 * withContentApi validates and what docs/content-api.md describes. No scope: a content key
 * reads its newsroom's published articles and nothing else.
 */
export type ContentOperation = { method: 'GET'; path: string; query: z.ZodType; params?: z.ZodType }

/** The key may come in the query (`key=nrc_…`), so a page's URL alone names its cache entry. */
const contentKeyParam = z.string().min(1).max(200).optional()

export const listContentArticlesOperation = {
  method: 'GET',
  path: '/content/v1/articles',
  query: listArticlesQuerySchema.pick({ tag: true, q: true, limit: true, offset: true, cursor: true }).extend({ key: contentKeyParam }),
} satisfies ContentOperation

export const getContentArticleOperation = {
  method: 'GET',
  path: '/content/v1/articles/{article}',
  query: z.strictObject({ key: contentKeyParam }),
  params: z.object({ article: z.string().min(1).max(300) }),
} satisfies ContentOperation
