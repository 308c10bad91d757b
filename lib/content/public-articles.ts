import type { Article } from '../db/generated/client.ts'
import { NotFoundError } from '../errors.ts'
import { toArticleRecord } from '../articles/article-record.ts'
import { articleColumns, toArticle, type StoredArticle } from '../articles/article-rows.ts'
import type { ListArticlesQuery } from '../articles/article-schemas.ts'
import { listArticles } from '../articles/list-articles.ts'
import type { ActingTenant } from '../tenancy/actor.ts'
import type { PublicArticle } from './public-article-schema.ts'
import { tenantSql } from '../tenancy/tenant-sql.ts'
import { readArticle } from '../articles/get-article.ts'
import { publicImagesAndTurn, type PublicImage } from '../media/article-images.ts'

/** What the public site may show of an article: no workflow, authors' ids or versions; its images as publicImagesOf gives them. */
export function toPublicArticle(article: Article, images: PublicImage[]): PublicArticle {
  const { article_id, slug, headline, lede, body, tags, url, published_at, updated_at } = toArticleRecord(article)
  return { article_id, slug, headline, lede, body, tags, url, published_at, updated_at, images }
}

/** Articles as the public site may show them, their images read with one query for all. */
export async function toPublicArticles(tenantId: string, articles: readonly Article[], now: Date = new Date()): Promise<PublicArticle[]> {
  return (await toPublicArticlesAndTurn(tenantId, articles, now)).articles
}

/** toPublicArticles, and the next instant the answer changes by itself (an image's embargo or licence ending: publicImagesAndTurn). */
export async function toPublicArticlesAndTurn(tenantId: string, articles: readonly Article[], now: Date = new Date()): Promise<{ articles: PublicArticle[]; turnsAt: Date | null }> {
  const { images, turnsAt } = await publicImagesAndTurn(tenantId, articles, now)
  return { articles: articles.map((article) => toPublicArticle(article, images.get(article.id) ?? [])), turnsAt }
}

/** A page of the newsroom's published articles, newest first: the /v1 list with its status fixed. */
export function listPublishedArticles(tenant: ActingTenant, query: Pick<ListArticlesQuery, 'tag' | 'q' | 'limit' | 'offset' | 'cursor'>) {
  return listArticles({ tenant, user: null }, { ...query, status: 'published' })
}

/**
 * A published article by id (`art_…`) or by slug; a slug two live articles share names the
 * latest published. A draft, an unpublished or an archived article is a 404 like a missing one.
 */
export async function getPublishedArticle(tenant: ActingTenant, slugOrId: string): Promise<Article> {
  // By id, the read the /v1 record makes, batched with the others of its turn: a site's cache
  // misses are many different articles at once, and one planned statement each cost PostgreSQL
  // four times a /v1 read's CPU (bench: the content API's miss row).
  const row = slugOrId.startsWith('art_')
    ? await readArticle(tenant.id, slugOrId)
    : (
        await tenantSql(tenant.id).rows<StoredArticle>(
          `SELECT ${articleColumns} FROM articles WHERE tenant_id = $1 AND status = 'published' AND slug = $2
           ORDER BY published_at DESC NULLS LAST, id DESC LIMIT 1`,
          [slugOrId],
          // One plan whatever the slug: the (tenant, slug) index.
          { prepare: true },
        )
      ).map(toArticle)[0]
  if (!row || row.status !== 'published') throw new NotFoundError('published article', slugOrId)
  return row
}
