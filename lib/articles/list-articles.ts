import type { Article, Prisma } from '../db/generated/client.ts'
import { tenantDb } from '../tenancy/tenant-db.ts'
import type { ListArticlesQuery } from './article-schemas.ts'
import { fromApiStatus } from './article-status.ts'
import { articleTotal } from './article-totals.ts'

export type ArticlePage = { items: Article[]; total: number; limit: number; offset: number; nextOffset: number | null }

/**
 * The newest publications first, unpublished articles last; created_at and id break ties so
 * that walking the pages returns every article exactly once.
 */
export const articleListOrder: Prisma.ArticleOrderByWithRelationInput[] = [
  { publishedAt: { sort: 'desc', nulls: 'last' } },
  { createdAt: 'desc' },
  { id: 'desc' },
]

export function articleListFilter(query: Omit<ListArticlesQuery, 'limit' | 'offset'>): Prisma.ArticleWhereInput {
  const where: Prisma.ArticleWhereInput = {}
  if (query.status) where.status = fromApiStatus(query.status)
  if (query.author_id) where.authorId = query.author_id
  if (query.department_id) where.departmentId = query.department_id
  if (query.tag) where.tags = { has: query.tag }
  if (query.published_after || query.published_before) {
    where.publishedAt = {
      ...(query.published_after && { gte: new Date(query.published_after) }),
      ...(query.published_before && { lt: new Date(query.published_before) }),
    }
  }
  return where
}

export async function listArticles(tenantId: string, query: ListArticlesQuery): Promise<ArticlePage> {
  const tdb = tenantDb(tenantId)
  const where = articleListFilter(query)
  const [items, total] = await Promise.all([
    tdb.article.findMany({ where, orderBy: articleListOrder, skip: query.offset, take: query.limit }),
    articleTotal(tenantId, where, () => tdb.article.count({ where })),
  ])
  const nextOffset = query.offset + items.length < total ? query.offset + query.limit : null
  return { items, total, limit: query.limit, offset: query.offset, nextOffset }
}
