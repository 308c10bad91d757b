import { z } from 'zod'
import { articleListSchema, articleSchema } from '../articles/article-schemas.ts'

export const publicImageSchema = z
  .object({
    media_id: z.string().meta({ description: 'The media library id: the `data-media-id` of the body\'s `<figure>` showing it (for a body figure).' }),
    featured: z.boolean().meta({ description: "Whether this is the article's featured image (always the first when there is one)." }),
    url: z.string().meta({ description: 'A rendition 1,280 px wide (or the widest the image has, when smaller): signed, immutable, cached for a year. AVIF or WebP when the request\'s `Accept` names them, JPEG otherwise.' }),
    srcset: z.string().meta({ description: 'Every width the image is offered in, as an `<img srcset>` value (`url 320w, url 640w, …`).' }),
    width: z.number().int().meta({ description: 'The width of `url`, in pixels.' }),
    height: z.number().int().meta({ description: 'The height of `url`, in pixels (the image\'s own shape).' }),
    alt: z.string().nullable().meta({ description: 'The alt text.' }),
    caption: z.string().nullable(),
    credit: z.string().nullable(),
    focal_point: z.object({ x: z.number(), y: z.number() }).meta({ description: 'The point a site\'s own crop (`object-position`) should keep in view, as fractions from the top left.' }),
  })
  .meta({
    id: 'PublicImage',
    description:
      'An image of a published article: the featured image first, then the body\'s figures in reading order. An image the public may not see now (under embargo, licence expired) is left out; the article keeps its text. ' +
      'Rendition URLs are paths on this service unless the newsroom serves them from a media host of its own.',
  })

/**
 * What the public content API shows of a published article: the /v1 record's public fields,
 * without workflow, authors, versions or departments. toPublicArticle (public-articles.ts)
 * answers this shape, and the content API's OpenAPI document describes it.
 */
export const publicArticleSchema = articleSchema
  .pick({ article_id: true, slug: true, headline: true, lede: true, body: true, tags: true, url: true, published_at: true, updated_at: true })
  .extend({ images: z.array(publicImageSchema).meta({ description: "The article's images the public may see now, featured first." }) })
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
      images: [
        {
          media_id: 'med_0mhx2k1s9q3v8w4t6y1z2a3b4c',
          featured: true,
          url: '/content/v1/media/med_0mhx2k1s9q3v8w4t6y1z2a3b4c/3f1c9a0b2d4e6f80-f500_400-w1280/Jq2b9cN0xq3Yk1Rz8Lm4aw',
          srcset: '/content/v1/media/med_0mhx2k1s9q3v8w4t6y1z2a3b4c/3f1c9a0b2d4e6f80-f500_400-w320/Tn3c0dO1yr4Zl2Sa9Mn5bx 320w, /content/v1/media/med_0mhx2k1s9q3v8w4t6y1z2a3b4c/3f1c9a0b2d4e6f80-f500_400-w1280/Jq2b9cN0xq3Yk1Rz8Lm4aw 1280w',
          width: 1280,
          height: 853,
          alt: 'Council members raise their hands in the vote',
          caption: 'The vote, 7–2.',
          credit: 'Jane Doe / Daily Planet',
          focal_point: { x: 0.5, y: 0.4 },
        },
      ],
    },
  })

export type PublicArticle = z.infer<typeof publicArticleSchema>

/** A page of published articles: the /v1 page's paging fields around public articles. */
export const publicArticleListSchema = articleListSchema.extend({ items: z.array(publicArticleSchema) }).meta({ id: 'PublicArticleList' })
