import type { Media } from '../db/generated/client.ts'
import { tenantDb } from '../tenancy/tenant-db.ts'
import { mediaWithheld } from './media-rights.ts'
import { renditionUrls } from './renditions.ts'

/** One image of a published article as the content API gives it (lib/content/public-article-schema.ts). */
export type PublicImage = {
  media_id: string
  featured: boolean
  url: string
  srcset: string
  width: number
  height: number
  alt: string | null
  caption: string | null
  credit: string | null
  focal_point: { x: number; y: number }
}

type ArticleWithImages = { id: string; featuredMediaId: string | null; body: string | null }

// The width `url` names: wide enough for an article's column on a high-density screen, and what
// a site without srcset support shows. srcset offers every width the image has.
const defaultWidth = 1280
// In a <figure> tag only: the body is sanitised, so text cannot forge a tag (its "<" is "&lt;"),
// but it may quote the attribute (a how-to); the articles_collect_media_ids trigger reads alike.
const figurePattern = /<figure\s[^>]*data-media-id="(med_[0-9a-z]+)"/g

/** The library ids a (sanitised) body's figures name, each once, in reading order. */
export function bodyFigureIds(body: string | null | undefined): string[] {
  return [...new Set([...(body ?? '').matchAll(figurePattern)].map((match) => match[1]!))]
}

/** The article's images in reading order: the featured image, then each body figure once. */
export function imageOrder(article: Pick<ArticleWithImages, 'featuredMediaId' | 'body'>): { id: string; featured: boolean }[] {
  const order = new Map<string, boolean>()
  if (article.featuredMediaId) order.set(article.featuredMediaId, true)
  for (const match of (article.body ?? '').matchAll(figurePattern)) if (!order.has(match[1]!)) order.set(match[1]!, false)
  return [...order].map(([id, featured]) => ({ id, featured }))
}

export function toPublicImage(media: Media, featured: boolean): PublicImage {
  const links = renditionUrls(media)
  const main = links.filter((link) => link.width <= defaultWidth).at(-1) ?? links[0]!
  return {
    media_id: media.id,
    featured,
    url: main.url,
    srcset: links.map((link) => `${link.url} ${link.width}w`).join(', '),
    width: main.width,
    height: main.height,
    alt: media.altText,
    caption: media.caption,
    credit: media.credit,
    focal_point: { x: media.focalX, y: media.focalY },
  }
}

/**
 * The public images of published articles, by article id, with one query for all of them (a
 * list page's 200 articles included). An image the public may not see now (under embargo,
 * licence expired: mediaWithheld, the rule renditions follow too) or no longer in the library is
 * left out; the article keeps its text.
 */
export async function publicImagesOf(tenantId: string, articles: readonly ArticleWithImages[], now: Date = new Date()): Promise<Map<string, PublicImage[]>> {
  return (await publicImagesAndTurn(tenantId, articles, now)).images
}

/**
 * publicImagesOf, and the next instant its answer changes by itself (an embargo or a licence of
 * one of the images ending; null when none is ahead): a cached answer showing them must not
 * outlive it, since no write moves the article generation then.
 */
export async function publicImagesAndTurn(tenantId: string, articles: readonly ArticleWithImages[], now: Date = new Date()): Promise<{ images: Map<string, PublicImage[]>; turnsAt: Date | null }> {
  // From the featured id and the body itself (not media_ids), so a preview of an older
  // revision's body shows that revision's figures.
  const orders = new Map(articles.map((article) => [article.id, imageOrder(article)]))
  const ids = [...new Set([...orders.values()].flat().map((image) => image.id))]
  const rows = ids.length > 0 ? await tenantDb(tenantId).media.findMany({ where: { id: { in: ids } } }) : []
  const shown = new Map(rows.filter((media) => !mediaWithheld(media, now)).map((media) => [media.id, media]))
  const ahead = rows.flatMap((media) => [media.embargoUntil, media.expiresAt]).filter((instant): instant is Date => instant !== null && instant > now)
  const turnsAt = ahead.length > 0 ? new Date(Math.min(...ahead.map((instant) => instant.getTime()))) : null
  const images = new Map(
    articles.map((article) => [
      article.id,
      orders.get(article.id)!.flatMap(({ id, featured }) => {
        const media = shown.get(id)
        return media ? [toPublicImage(media, featured)] : []
      }),
    ]),
  )
  return { images, turnsAt }
}
