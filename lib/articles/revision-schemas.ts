import { z } from 'zod'
import { withoutNul } from '../validation.ts'
import { articlePathSchema } from './article-schemas.ts'

export const revisionFields = ['headline', 'lede', 'body', 'department_id', 'tags', 'author_id'] as const

export const revisionSchema = z
  .object({
    revision_id: z.string().meta({ example: 'rev_3f1c9a0e6b2d4c7a8e5f1a2b3c4d5e6f' }),
    article_id: z.string().meta({ example: 'art_0mhx2k1s9q3v8w4t6y1z2a3b4c' }),
    number: z
      .number()
      .int()
      .min(1)
      .meta({ description: "The revision's own number: 1 for the article's first content, then 2, 3… with no gaps. Not the article version." }),
    version: z
      .number()
      .int()
      .min(1)
      .meta({
        description:
          'The article version this revision produced (what If-Match names). Workflow moves and slug changes raise the version without a revision, so versions of consecutive revisions may have gaps.',
      }),
    actor: z
      .object({ id: z.string(), name: z.string() })
      .nullable()
      .meta({ description: 'Who made the change; null when the system did (or the user was deleted).' }),
    created_at: z.iso.datetime({ offset: true }),
    fields: z.array(z.enum(revisionFields)).meta({ description: 'The fields this change set; every field for the first revision.' }),
    headline: z.string(),
    lede: z.string().nullable(),
    body: z.string().nullable(),
    department_id: z.string().nullable(),
    tags: z.array(z.string()),
    author_id: z.string(),
    restored_from_revision_id: z.string().nullable().meta({ description: 'The revision this one put back, when it was a restore; otherwise null.' }),
    restored_from_revision_number: z.number().int().min(1).nullable().meta({ description: 'That revision\'s number, when it was a restore; otherwise null.' }),
  })
  .meta({
    id: 'ArticleRevision',
    description: 'The article content as a change left it: who, when, which fields, and every content field’s value.',
  })

export type RevisionRecord = z.infer<typeof revisionSchema>

export const revisionListSchema = z
  .object({
    items: z.array(revisionSchema),
    total: z.number().int().min(0),
    limit: z.number().int(),
    offset: z.number().int(),
    next_offset: z.number().int().nullable().meta({ description: 'Offset of the next page, or null on the last page.' }),
    next_cursor: z.string().nullable().meta({ description: 'Send it as `cursor` (with the same filters) for the next page; null on the last page.' }),
  })
  .meta({ id: 'ArticleRevisionList' })

export const listRevisionsQuerySchema = z
  .strictObject({
    limit: z.coerce.number().int('limit must be a whole number.').min(1, 'limit must be 1 to 100.').max(100, 'limit must be 1 to 100.').default(20),
    offset: z.coerce.number().int('offset must be a whole number.').min(0, 'offset must be 0 or more.').max(10_000_000).default(0),
    cursor: withoutNul(z.string().min(1).max(1_024))
      .optional()
      .meta({ description: "The previous page's `next_cursor`: the page after it, found by position rather than by counting (as cheap deep in the list as on page 1). Not with `offset`." }),
  })
  .meta({ id: 'ListArticleRevisionsQuery' })

export const revisionPathSchema = articlePathSchema.extend({
  revision_id: withoutNul(z.string().min(1).max(200)).meta({ description: 'The revision id, e.g. rev_3f1c9a0e6b2d4c7a8e5f1a2b3c4d5e6f.' }),
})
