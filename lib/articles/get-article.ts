import type { Article } from '../db/generated/client.ts'
import { NotFoundError } from '../errors.ts'
import { tenantDb } from '../tenancy/tenant-db.ts'

/** The tenant's article, or a 404: another tenant's id looks exactly like a missing one. */
export async function getArticle(tenantId: string, articleId: string): Promise<Article> {
  const article = await tenantDb(tenantId).article.findUnique({ where: { id: articleId } })
  if (!article) throw new NotFoundError('article', articleId)
  return article
}
