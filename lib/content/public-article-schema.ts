import { z } from 'zod'
import { articleListSchema, articleSchema } from '../articles/article-schemas.ts'

/**
 * What the public content API shows of a published article: the /v1 record's public fields,
 * without workflow, authors, versions or departments. toPublicArticle (public-articles.ts)
 * answers this shape, and the content API's OpenAPI document describes it.
 */
export const publicArticleSchema = articleSchema
  .pick({ article_id: true, slug: true, headline: true, lede: true, body: true, tags: true, url: true, published_at: true, updated_at: true })
  .meta({
    id: 'PublicArticle',
    example: {
      article_id: 'art_0mhx2k1s9q3v8w4t6y1z2a3b4c',
      slug: 'council-approves-riverside-plan',
      headline: 'Council approves riverside plan',
      lede: 'The vote ends a decade of debate.',
      body: '<p>The council voted 7–2…</p>',
      tags: ['local', 'politics'],
      url: 'https://dailyplanet.example/articles/council-approves-riverside-plan-0mhx2k1s9q3v8w4t6y1z2a3b4c',
      published_at: '2026-11-20T09:30:00.000Z',
      updated_at: '2026-11-20T09:30:00.000Z',
    },
  })

export type PublicArticle = z.infer<typeof publicArticleSchema>

/** A page of published articles: the /v1 page's paging fields around public articles. */
export const publicArticleListSchema = articleListSchema.extend({ items: z.array(publicArticleSchema) }).meta({ id: 'PublicArticleList' })
