/** Lower-case words joined by hyphens, at most 80 characters: the readable part of a URL. */
export function slugify(text: string): string {
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

/**
 * The public address of a published article on the tenant's site. The id keeps it unique
 * and stable even when two headlines share a slug.
 */
export function buildArticleUrl(publicSiteUrl: string, articleId: string, headline: string): string {
  return `${publicSiteUrl.replace(/\/+$/, '')}/articles/${slugify(headline)}-${articleId.replace(/^art_/, '')}`
}
