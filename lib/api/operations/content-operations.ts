import { z } from 'zod'
import { listArticlesQuerySchema } from '../../articles/article-schemas.ts'
import { withoutNul } from '../../validation.ts'
import { publicArticleListSchema, publicArticleSchema } from '../../content/public-article-schema.ts'

/**
 * The public content API (/content/v1), declared once like the /v1 operations: what
 * withContentApi validates and what the content API's OpenAPI document
 * (lib/api/openapi/content-openapi-document.ts, served at /content/v1/openapi.json) describes.
 * No scope: a content key reads its newsroom's published articles and nothing else.
 */
export type ContentOperation = {
  method: 'GET'
  path: string
  query: z.ZodType
  params?: z.ZodType
  operationId: string
  summary: string
  /** Markdown; the key, caching and failures every operation shares are added by the document. */
  description: string
  success: { description: string; schema: z.ZodType }
  /** Whether an unknown or unpublished address is a 404 (a page of a list never is). */
  notFound?: string
}

/** The key may come in the query (`key=nrc_…`), so a page's URL alone names its cache entry. */
const contentKeyParam = z.string().min(1).max(200).optional()

export const listContentArticlesOperation = {
  method: 'GET',
  path: '/content/v1/articles',
  query: listArticlesQuerySchema.pick({ tag: true, q: true, limit: true, offset: true, cursor: true }).extend({ key: contentKeyParam }),
  operationId: 'listPublishedArticles',
  summary: 'List published articles',
  description: [
    "A page of the newsroom's published articles, newest publication first (ties by creation, then `article_id`), as the newsroom's site shows them.",
    '',
    '`tag` keeps the articles carrying that tag in any spelling; `q` searches headline, lede, tags and body text, most relevant first, as `GET /v1/articles` does. ' +
      'Page with `limit` (1 to 200, default 50) and `offset`, or, without `q`, send the page\'s `next_cursor` back as `cursor` (no `offset`): a cursor page costs what page 1 costs. ' +
      'A search (`q`) pages by `offset` only. ' +
      'Any other parameter (`status`, `author_id`, …) is a 422: this API never shows a draft.',
  ].join('\n'),
  success: { description: 'A page of published articles.', schema: publicArticleListSchema },
} satisfies ContentOperation

export const getContentArticleOperation = {
  method: 'GET',
  path: '/content/v1/articles/{article}',
  query: z.strictObject({ key: contentKeyParam }),
  params: z.object({
    // PostgreSQL text cannot hold NUL: refused here as a 422, where it reached the database as a 500 (fuzz test).
    article: withoutNul(z.string().min(1).max(300)).meta({ description: "The article's id (`art_…`) or its slug; a slug two articles once shared names the one published last.", example: 'council-approves-riverside-plan' }),
  }),
  operationId: 'getPublishedArticle',
  summary: 'Get a published article',
  description: 'One published article, by id or by slug: what an article page of the site renders.',
  success: { description: 'The article.', schema: publicArticleSchema },
  notFound: 'No published article has this id or slug: a draft, an unpublished or an archived article answers as one that does not exist.',
} satisfies ContentOperation
