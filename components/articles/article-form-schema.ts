import { z } from 'zod'
import { createArticleSchema, headlineSchema, slugSchema, tagsSchema } from '@/lib/articles/article-schemas'
import type { ArticleRecord } from '@/lib/articles/article-schemas'

// The editor's form is plain strings; these turn them into the article fields with the API's
// own schemas, so the portal and /v1 accept and refuse the same values with the same words.

// Optional on create; the form always has a value (or null).
const lede = createArticleSchema.shape.lede.unwrap()
const body = createArticleSchema.shape.body.unwrap()

function splitTags(value: string): string[] {
  return value
    .split(',')
    .map((tag) => tag.trim())
    .filter(Boolean)
}

/** An editor with nothing typed still holds an empty paragraph; that is no body. */
function emptyBody(html: string): boolean {
  return html.replace(/<p>\s*<\/p>/g, '').trim() === ''
}

export const articleFormSchema = z.object({
  headline: headlineSchema,
  // Empty hands the slug back to the headline.
  slug: z
    .string()
    .transform((value) => (value.trim() === '' ? null : value.trim()))
    .pipe(slugSchema.nullable()),
  lede: z
    .string()
    .transform((value) => (value.trim() === '' ? null : value))
    .pipe(lede),
  body: z
    .string()
    .transform((value) => (emptyBody(value) ? null : value))
    .pipe(body),
  department_id: z.string().transform((value) => value || null),
  // A media library image (the picker sets it); empty for none.
  featured_media_id: z.string().transform((value) => value || null),
  // tagsSchema's messages name each tag's rule; the form shows the first against the field.
  tags: z.string().transform((value, ctx) => {
    const parsed = tagsSchema.safeParse(splitTags(value))
    if (!parsed.success) {
      ctx.addIssue({ code: 'custom', message: parsed.error.issues[0]?.message ?? 'Check the tags.' })
      return z.NEVER
    }
    return parsed.data
  }),
})

export type ArticleFormInput = z.input<typeof articleFormSchema>
export type ArticleFormValues = z.output<typeof articleFormSchema>

export const emptyArticleForm: ArticleFormInput = { headline: '', slug: '', lede: '', body: '', department_id: '', featured_media_id: '', tags: '' }

export function articleToForm(article: ArticleRecord): ArticleFormInput {
  return {
    headline: article.headline,
    slug: article.slug,
    lede: article.lede ?? '',
    body: article.body ?? '',
    department_id: article.department_id ?? '',
    featured_media_id: article.featured_media_id ?? '',
    tags: article.tags.join(', '),
  }
}

/**
 * The changes a save sends. The slug goes only when the editor touched it: sending the one
 * shown would pin a slug that still follows the headline.
 */
export function formChanges(values: ArticleFormValues, slugEdited: boolean) {
  const { slug, ...rest } = values
  return slugEdited ? { ...rest, slug } : rest
}

/** What a new article is created with: no slug unless the editor typed one. */
export function formNewArticle(values: ArticleFormValues) {
  const { slug, ...rest } = values
  return slug === null ? rest : { ...rest, slug }
}

/** The form's field for a field error of the domain (`tags.3` belongs to tags). */
export function formFieldOf(field: string): keyof ArticleFormInput | null {
  const name = field.split('.')[0]
  return name && name in emptyArticleForm ? (name as keyof ArticleFormInput) : null
}
