import type { Article } from '../db/generated/client.ts'
import { NotFoundError } from '../errors.ts'
import { assertCan } from '../auth/permissions.ts'
import type { Actor } from '../tenancy/actor.ts'
import { tenantDb } from '../tenancy/tenant-db.ts'

/** The newsroom's article, or a 404: another newsroom's id looks exactly like a missing one. */
export async function getArticle(actor: Actor, articleId: string): Promise<Article> {
  assertCan(actor, 'articles:read')
  const article = await tenantDb(actor.tenant.id).article.findUnique({ where: { id: articleId } })
  if (!article) throw new NotFoundError('article', articleId)
  return article
}
