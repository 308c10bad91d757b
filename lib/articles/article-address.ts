import type { Article } from '../db/generated/client.ts'

// An article's public address: `<site>/articles/<slug>-<id>`. The slug follows the headline
// until an editor sets it or the article is first published; from then on it is stored, so a
// headline change never moves a live page. Every address a published article leaves is kept in
// `previousUrls`, so sites can redirect it to the current one.

const asciiOnly = /^[\x00-\x7f]*$/

/** Lower-case words joined by hyphens, at most 80 characters: the readable part of a URL. */
export function slugify(text: string): string {
  // An ASCII text is its own NFKD form, with no combining marks to drop. A list renders the slug
  // of every article without a stored one: normalising was ~1.5 % of a cold page's CPU, and the
  // four regular expressions below another ~2 % (issue 50), so ASCII takes one pass instead.
  if (asciiOnly.test(text)) return asciiSlug(text.toLowerCase())
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
    .replace(/-+$/, '')
  return slug || 'article'
}

/** slugify's result for a lower-cased ASCII text: its runs of a-z0-9 joined by single hyphens, cut at 80. */
function asciiSlug(lower: string): string {
  let slug = ''
  let wordStart = -1
  for (let index = 0; index <= lower.length && slug.length < maxSlugLength; index++) {
    const code = index < lower.length ? lower.charCodeAt(index) : 0
    if ((code >= 97 && code <= 122) || (code >= 48 && code <= 57)) {
      if (wordStart < 0) wordStart = index
    } else if (wordStart >= 0) {
      slug = slug ? `${slug}-${lower.slice(wordStart, index)}` : lower.slice(wordStart, index)
      wordStart = -1
    }
  }
  if (slug.length > maxSlugLength) slug = slug.slice(0, maxSlugLength)
  if (slug.endsWith('-')) slug = slug.slice(0, -1)
  return slug || 'article'
}

/** The form a slug sent by a client must already have (what slugify produces). */
export const slugPattern = /^[a-z0-9]+(?:-[a-z0-9]+)*$/
export const maxSlugLength = 80

/**
 * The public address of a published article on the tenant's site. The id keeps it unique
 * and stable even when two articles share a slug.
 */
export function buildArticleUrl(publicSiteUrl: string, articleId: string, slug: string): string {
  return `${publicSiteUrl.replace(/\/+$/, '')}/articles/${slug}-${articleId.replace(/^art_/, '')}`
}

type Addressed = Pick<Article, 'id' | 'headline' | 'slug' | 'url' | 'previousUrls' | 'publishedAt' | 'status'>

/** The slug the article's address uses (or would use, were it published now). */
export function currentSlug(article: Pick<Article, 'headline' | 'slug'>): string {
  return article.slug ?? slugify(article.headline)
}

export type AddressChanges = { slug?: string | null; url?: string | null; previousUrls?: string[] }

function withoutUrl(urls: string[], url: string): string[] {
  return urls.filter((kept) => kept !== url)
}

function withUrl(urls: string[], url: string): string[] {
  return [...withoutUrl(urls, url), url]
}

/**
 * What an edit of the headline and/or slug does to the address. `slug: null` hands the slug back
 * to the headline; once the article has been published, that means the headline's slug now,
 * stored. A published article whose slug changes moves to the new address at once and keeps the
 * old one in `previousUrls`.
 */
export function editedAddress(publicSiteUrl: string, current: Addressed, edit: { headline?: string; slug?: string | null }): AddressChanges {
  if (edit.slug === undefined) return {}
  const headline = edit.headline ?? current.headline
  const slug = edit.slug ?? (current.publishedAt ? slugify(headline) : null)
  const changes: AddressChanges = { slug }
  if (current.status === 'published' && current.url) {
    const url = buildArticleUrl(publicSiteUrl, current.id, slug ?? slugify(headline))
    if (url !== current.url) {
      changes.url = url
      changes.previousUrls = withoutUrl(withUrl(current.previousUrls, current.url), url)
    }
  }
  return changes
}

/** Publishing stores the slug (it no longer follows the headline) and sets the address. */
export function publishedAddress(publicSiteUrl: string, current: Addressed): Required<AddressChanges> {
  const slug = currentSlug(current)
  const url = buildArticleUrl(publicSiteUrl, current.id, slug)
  return { slug, url, previousUrls: withoutUrl(current.previousUrls, url) }
}

/** Unpublishing takes the article off the site; the address it had is kept for redirects. */
export function withdrawnAddress(current: Addressed): AddressChanges {
  return current.url ? { url: null, previousUrls: withUrl(current.previousUrls, current.url) } : { url: null }
}
