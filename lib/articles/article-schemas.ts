import { z } from 'zod'
import { noteTextSchema } from './note-schemas.ts'
import { withoutNul } from '../validation.ts'
import { apiStatuses, creatableStatuses } from './article-status.ts'
import { maxSlugLength, slugPattern } from './article-address.ts'

// The single source of the article API's shapes: validation, TypeScript types and the
// OpenAPI document all come from these schemas.

// An instant of years 1 to 9999 in UTC, after its offset: 9999-12-31T23:59:59-14:00 is written
// with four digits but is 10000-01-01T13:59:59Z, which PostgreSQL stored, Prisma then read as
// an invalid date, and the API showed as +010000-…, a text its own schema refused (break79).
const firstInstant = Date.parse('0001-01-01T00:00:00.000Z')
const lastInstant = Date.parse('9999-12-31T23:59:59.999Z')
const timestamp = z.iso.datetime({ offset: true }).refine((text) => {
  const at = Date.parse(text)
  // Not a datetime at all: the format's own error says so, once.
  return Number.isNaN(at) || (at >= firstInstant && at <= lastInstant)
}, 'must be an instant from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z in UTC (after its offset)')
const nullableTimestamp = timestamp.nullable()
const id = (example: string) => withoutNul(z.string().min(1).max(64)).meta({ example })

export const headlineSchema = withoutNul(z.string().trim().min(1, 'headline must not be empty.').max(300, 'headline must be at most 300 characters.'))
  .meta({ description: '1 to 300 characters.', example: 'Council approves riverside plan' })

export const tagsSchema = z
  .array(withoutNul(z.string().trim().min(1, 'Each tag must have 1 to 64 characters.').max(64, 'Each tag must have 1 to 64 characters.')))
  .max(50, 'At most 50 tags.')
  .meta({
    description: 'At most 50 tags of 1 to 64 characters. Tags are one whatever their case: a later spelling of a tag already sent is removed ("Local", "local" → "Local"), and the order sent is kept.',
    example: ['local', 'politics'],
  })

const slugDescription =
  "The readable part of the public address (`<site>/articles/<slug>-<id>`). Until it is set or the article is first published it follows the headline; from then on it is kept. Changing it on a published article moves the article to the new address at once and adds the old one to `previous_urls`."

export const slugSchema = z
  .string()
  .max(maxSlugLength, `slug must be at most ${maxSlugLength} characters.`)
  .regex(slugPattern, 'slug must be lower-case letters and digits joined by single hyphens, e.g. council-approves-riverside-plan.')
  .meta({
    description: slugDescription,
    example: 'council-approves-riverside-plan',
  })

const bodyDescription = [
  'HTML, sanitised on write by one allow-list, so what is stored is what every reader and webhook receives.',
  'Kept: paragraphs and line breaks (`p`, `br`, `hr`), headings `h1`–`h6`, lists (`ul`, `ol` with `start`, `li`), emphasis (`strong`, `b`, `em`, `i`, `u`, `s`, `sub`, `sup`, `mark`, `small`),',
  '`blockquote`, `pre` and `code` (class `language-*` only), links `a` (`href` with http, https, mailto or tel, or relative; `title`; `target="_blank"` gets `rel="noopener noreferrer nofollow"`),',
  '`figure` (only `data-media-id="med_…"`, a media library image: `<img>` is removed; publish the article and the content API gives each image as `images`), `figcaption` and simple tables (`table`, `caption`, `thead`, `tbody`, `tfoot`, `tr`, `th`, `td` with `colspan`/`rowspan`).',
  'Everything else is removed: `script`, `style`, `iframe` and other embeds (send a link to the post or video; sites may render it through oEmbed), forms, SVG/MathML, `on*` handlers, `style`, `id`, `class`,',
  'and `javascript:`, `data:` or protocol-relative URLs. When something was removed, the response carries the stored body and a `Warning` header naming what went.',
].join(' ')

const articleFields = {
  headline: headlineSchema,
  lede: withoutNul(z.string().max(2_000, 'lede must be at most 2,000 characters.')).nullable().meta({ example: 'The vote ends a decade of debate.' }),
  body: withoutNul(z.string().max(1_000_000, 'body must be at most 1,000,000 characters.'))
    .nullable()
    .meta({ description: bodyDescription, example: '<p>The council voted 7–2…</p>' }),
  department_id: id('dep_0mhx2k1s9q3v8w4t6y1z2a3b4c').nullable().meta({ description: "One of the tenant's departments." }),
  tags: tagsSchema,
  author_id: id('usr_0mhx2k1s9q3v8w4t6y1z2a3b4c').meta({ description: 'A user of the tenant; defaults to the owner of the token.' }),
  slug: slugSchema,
  featured_media_id: id('med_0mhx2k1s9q3v8w4t6y1z2a3b4c').nullable().meta({ description: 'The media library image shown with the article (its lead picture); null for none.' }),
}

export const createArticleSchema = z
  .strictObject({
    ...articleFields,
    lede: articleFields.lede.optional(),
    body: articleFields.body.optional(),
    department_id: articleFields.department_id.optional(),
    tags: articleFields.tags.optional(),
    author_id: articleFields.author_id.optional(),
    slug: articleFields.slug.optional(),
    featured_media_id: articleFields.featured_media_id.optional(),
    status: z
      .enum(creatableStatuses, {
        error: 'A new article starts as draft or in-review; move it on with POST /v1/articles/{article_id}/transitions.',
      })
      .optional()
      .meta({ description: 'draft (default) or in-review.' }),
  })
  .meta({ id: 'CreateArticle', description: 'A new article. Unknown fields are rejected.' })

export type CreateArticleInput = z.infer<typeof createArticleSchema>

export const updateArticleSchema = z
  .strictObject({
    headline: articleFields.headline.optional(),
    lede: articleFields.lede.optional(),
    body: articleFields.body.optional(),
    department_id: articleFields.department_id.optional(),
    tags: articleFields.tags.optional(),
    author_id: articleFields.author_id.optional(),
    featured_media_id: articleFields.featured_media_id.optional(),
    slug: articleFields.slug
      .nullable()
      .optional()
      .meta({ description: `${slugDescription} \`null\` hands it back to the headline (after the first publication: the headline's slug now, kept from then on).` }),
    status: z
      .never({ error: 'status cannot be patched; use POST /v1/articles/{article_id}/transitions.' })
      .optional()
      .meta({ description: 'Not patchable: move articles with the transitions endpoint.' }),
    override_lock: z.boolean().optional().meta({
      description:
        "Write even though someone else holds a live edit lease on the article (otherwise 409 `article_locked`). The override is recorded in the article's notes and the audit log.",
    }),
  })
  .meta({ id: 'UpdateArticle', description: 'The fields to change; the others keep their values.' })

export type UpdateArticleInput = z.infer<typeof updateArticleSchema>

export const articleStatusSchema = z.enum(apiStatuses).meta({ id: 'ArticleStatus' })

export const transitionArticleSchema = z
  .strictObject({
    to_state: articleStatusSchema.meta({ description: 'The state to move to.', example: 'published' }),
    expected_state: articleStatusSchema.optional().meta({
      description:
        'The state the caller saw the article in and means to move it from. If the article is in another state now (a colleague published it meanwhile), nothing moves: 412 `precondition_failed` saying what it is now. Pairs with `If-Match` (the version): a confirmation a person answered for one state is never applied to another.',
      example: 'in-review',
    }),
    publish_at: timestamp.optional().meta({
      description:
        'Only with to_state=published. In the future: the article stays approved and is published then. Now or past: published at once.',
      example: '2026-12-01T06:00:00Z',
    }),
    note: noteTextSchema.optional().meta({
      description: "Why: a review note that goes with the move (\"the second source is missing\"). Plain text; shown in the article's notes and History, and to the author on their desk.",
    }),
    override_lock: z.boolean().optional().meta({
      description:
        "Write even though someone else holds a live edit lease on the article (otherwise 409 `article_locked`). The override is recorded in the article's notes and the audit log.",
    }),
  })
  .meta({ id: 'TransitionArticle' })

export type TransitionArticleInput = z.infer<typeof transitionArticleSchema>

/** The list's page size when none is asked for, and the largest one allowed. */
export const defaultArticlePageSize = 50

export const listSorts = ['published_at', 'updated_at'] as const
export const maxArticlePageSize = 200

export const listArticlesQuerySchema = z
  .strictObject({
    status: articleStatusSchema.optional(),
    author_id: withoutNul(z.string().min(1).max(64)).optional(),
    department_id: withoutNul(z.string().min(1).max(64)).optional(),
    tag: withoutNul(z.string().min(1).max(64)).optional().meta({ description: 'Articles carrying this tag in any spelling: `tag=local` also finds "Local".' }),
    published_after: timestamp.optional().meta({ description: 'Inclusive: published_at ≥ this instant.' }),
    published_before: timestamp.optional().meta({ description: 'Exclusive: published_at < this instant.' }),
    updated_after: timestamp.optional().meta({ description: 'Inclusive: updated_at ≥ this instant.' }),
    updated_before: timestamp.optional().meta({ description: 'Exclusive: updated_at < this instant.' }),
    sort: z
      .enum(listSorts, { error: `sort must be one of: ${listSorts.join(', ')}.` })
      .optional()
      .meta({ description: '`published_at`: newest publications first, unpublished last (the default). `updated_at`: oldest change first, the order a sync needs.' }),
    cursor: withoutNul(z.string().min(1).max(1_024))
      .optional()
      .meta({ description: "The previous page's `next_cursor`: the page after it, found by position rather than by counting (as cheap at depth 50,000 as on page 1). Not with `offset`." }),
    q: withoutNul(z.string().trim().min(1, 'q must not be empty.').max(500, 'q must be at most 500 characters.')).optional(),
    limit: z.coerce
      .number()
      .int('limit must be a whole number.')
      .min(1, `limit must be 1 to ${maxArticlePageSize}.`)
      .max(maxArticlePageSize, `limit must be 1 to ${maxArticlePageSize}.`)
      .default(defaultArticlePageSize),
    offset: z.coerce.number().int('offset must be a whole number.').min(0, 'offset must be 0 or more.').max(10_000_000).default(0),
  })
  .meta({ id: 'ListArticlesQuery' })

export type ListArticlesQuery = z.infer<typeof listArticlesQuerySchema>
/** A list query's filters: what it selects, without its paging and order. */
export type ListArticlesFilter = Omit<ListArticlesQuery, 'limit' | 'offset' | 'cursor' | 'sort'>

export const articleLockSchema = z
  .object({
    holder_id: z.string().meta({ example: 'usr_0mhx2k1s9q3v8w4t6y1z2a3b4e' }),
    holder_name: z.string().meta({ example: 'Edith Hale' }),
    since: timestamp.meta({ description: 'When the holder began editing.' }),
    expires_at: timestamp.meta({ description: "When the lease lapses unless the holder's editor renews it (every 30 s while open); a lapsed lease blocks nothing." }),
  })
  .meta({ id: 'ArticleLock' })

export const articleSchema = z
  .object({
    article_id: id('art_0mhx2k1s9q3v8w4t6y1z2a3b4c'),
    headline: z.string(),
    lede: z.string().nullable(),
    body: z.string().nullable(),
    department_id: z.string().nullable(),
    tags: z.array(z.string()),
    featured_media_id: z.string().nullable().meta({ description: 'The media library image shown with the article, or null.' }),
    status: articleStatusSchema,
    author_id: z.string(),
    published_at: nullableTimestamp,
    scheduled_publish_at: nullableTimestamp,
    url: z.url().nullable().meta({ description: 'Public address; set while published.' }),
    slug: z.string().meta({ description: 'The readable part of the public address; see `slug` on create and update.' }),
    previous_urls: z.array(z.url()).meta({
      description:
        'Public addresses the article had before its current `url` (after a slug change, or kept while unpublished), oldest first. A site should answer them with a permanent redirect to `url` while the article is published.',
    }),
    created_at: timestamp,
    updated_at: timestamp,
    version: z.number().int().min(1).meta({ description: 'Increases with every change; the ETag carries it.' }),
    lock: articleLockSchema.nullable().optional().meta({
      description:
        "Who has the article open in an editor (a live edit lease), or null. Only on one article's `GET` and the lock endpoints; lists and webhook payloads leave it out. " +
        'A lease is not a change of the article: it moves neither `version` nor the `ETag`, so a `304` to `If-None-Match` says nothing about it. A cached answer may show a renewal up to 30 s late.',
    }),
  })
  .meta({
    id: 'Article',
    example: {
      article_id: 'art_0mhx2k1s9q3v8w4t6y1z2a3b4c',
      headline: 'Council approves riverside plan',
      lede: 'The vote ends a decade of debate.',
      body: '<p>The council voted 7–2…</p>',
      department_id: 'dep_0mhx2k1s9q3v8w4t6y1z2a3b4d',
      featured_media_id: null,
      tags: ['local', 'politics'],
      status: 'published',
      author_id: 'usr_0mhx2k1s9q3v8w4t6y1z2a3b4e',
      published_at: '2026-11-20T09:30:00.000Z',
      scheduled_publish_at: null,
      url: 'https://dailyplanet.example/articles/council-approves-riverside-plan-0mhx2k1s9q3v8w4t6y1z2a3b4c',
      slug: 'council-approves-riverside-plan',
      previous_urls: ['https://dailyplanet.example/articles/council-to-vote-on-riverside-plan-0mhx2k1s9q3v8w4t6y1z2a3b4c'],
      created_at: '2026-11-20T08:00:00.000Z',
      updated_at: '2026-11-20T09:30:00.000Z',
      version: 4,
    },
  })

export type ArticleRecord = z.infer<typeof articleSchema>

export const articleMatchSchema = z
  .object({
    rank: z.number().min(0).meta({ description: 'Relevance: higher is better; comparable within one search only.' }),
    snippet: z.string().meta({
      description: 'Lede and body text around the matched words, as HTML: all text escaped, matched words in `<mark>`.',
      example: 'The <mark>council</mark> voted 7–2 on the riverside plan …',
    }),
  })
  .meta({ id: 'ArticleMatch' })

export const listedArticleSchema = articleSchema
  .extend({ match: articleMatchSchema.optional().meta({ description: 'Only when searching with `q`: why this article matched.' }) })
  .meta({ id: 'ListedArticle' })

export const articleListSchema = z
  .object({
    items: z.array(listedArticleSchema),
    total: z.number().int().min(0),
    total_is_estimate: z.literal(true).optional().meta({
      description:
        'Present (true) when `total` is an estimate: only a search (`q`, by relevance) that matches more articles than it counts exactly (500) says so. Lists are always exact.',
    }),
    limit: z.number().int(),
    offset: z.number().int(),
    next_offset: z.number().int().nullable().meta({ description: 'Offset of the next page, or null on the last page.' }),
    next_cursor: z.string().nullable().meta({
      description:
        'Send it as `cursor` (with the same filters and sort) for the next page. With `sort=updated_at` it is set whenever the page has rows, and on an empty page repeats the cursor sent, so a mirror keeps the last one and polls with it for what changed since.',
    }),
  })
  .meta({ id: 'ArticleList' })

export const maxBulkArticles = 500

/**
 * Wire photos one request may fetch. Each is a fetch of up to MEDIA_MAX_BYTES and a decode; a
 * batch of 500 naming 500 different photos would hold the request for minutes. A feed sending
 * more splits the batch (the items past the cap fail, saying so, and nothing of theirs is fetched).
 */
export const maxImageUrlsPerImport = 50

/** As long as a media source_url may be (lib/media/media-schemas.ts). */
const maxFeaturedImageUrlLength = 2_048

export const bulkArticleSchema = createArticleSchema
  .extend({
    external_id: withoutNul(z.string().trim().min(1).max(200))
      .optional()
      .meta({ description: "The wire service's id, unique per tenant: re-sending it updates that article.", example: 'AP-2026-11-20-0042' }),
    featured_image_url: withoutNul(z.string({ error: 'featured_image_url must be a string.' }).trim().min(1, 'featured_image_url must not be empty.').max(maxFeaturedImageUrlLength, `featured_image_url must be at most ${maxFeaturedImageUrlLength} characters.`))
      .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), 'featured_image_url must be an absolute https URL.')
      .optional()
      .meta({
        description:
          "The wire photo to show with the article: fetched once per request (as `POST /v1/media`'s `source_url`: https, a public address, within the size and time limits) into the media library, " +
          'and set as `featured_media_id`. Items naming the same URL, or URLs serving the same bytes, share one media record; bytes the library already has are that record. ' +
          'A URL that cannot be fetched fails its item (`errors` names why). Send either this or `featured_media_id`.',
        example: 'https://wire.example.com/photos/4711.jpg',
      }),
  })
  .refine((item) => !(item.featured_image_url !== undefined && item.featured_media_id != null), {
    path: ['featured_image_url'],
    message: 'Send either featured_image_url or featured_media_id, not both.',
  })
  .meta({ id: 'BulkArticle' })

// Items are validated one by one by the import itself, so one bad item cannot sink the rest;
// the request schema only checks the envelope. The documented shape names the item schema.
export const bulkImportSchema = z.strictObject({
  articles: z.array(z.unknown()).min(1, 'Send 1 to 500 articles.'),
})

export const bulkImportDocumentedSchema = z
  .strictObject({ articles: z.array(bulkArticleSchema).min(1).max(maxBulkArticles) })
  .meta({ id: 'BulkImport', description: `1 to ${maxBulkArticles} articles; more is refused with 413 and nothing is stored.` })

export const bulkImportResultSchema = z
  .object({
    created: z.number().int(),
    updated: z.number().int(),
    failed: z.number().int(),
    results: z.array(
      z.object({
        index: z.number().int(),
        status: z.enum(['created', 'updated', 'failed']),
        article_id: z.string().optional(),
        external_id: z.string().optional(),
        body_removed: z.array(z.string()).optional().meta({ description: 'What the body allow-list removed from this item\'s body, when anything was.' }),
        featured_media_id: z.string().optional().meta({ description: "The item's featured image in the media library, when it named one (`featured_media_id`, or the record `featured_image_url` was fetched into)." }),
        errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
      }),
    ),
  })
  .meta({ id: 'BulkImportResult' })

export const articlePathSchema = z.object({
  article_id: withoutNul(z.string().min(1).max(200)).meta({ description: 'The article id, e.g. art_0mhx2k1s9q3v8w4t6y1z2a3b4c.' }),
})
