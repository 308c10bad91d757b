import type { Article } from '../db/generated/client.ts'
import { ConflictError, NotFoundError, PreconditionFailedError } from '../errors.ts'
import type { TenantDb } from '../tenancy/tenant-db.ts'
import { ifMatchSatisfied } from './article-record.ts'

const maxAttempts = 3

/**
 * Applies a change to an article as it is now. `apply` judges the version it is given (and may
 * refuse by throwing) and writes only to that version, answering undefined when a concurrent
 * writer got there first. Then the change is judged again against the new version — unless the
 * caller pinned the version it saw (If-Match, or the editor's loaded version): that is a 412.
 */
export async function changeCurrentVersion<Result>(
  tdb: TenantDb,
  articleId: string,
  ifMatch: string | null | undefined,
  apply: (current: Article) => Promise<Result | undefined>,
): Promise<Result> {
  for (let attempt = 1; ; attempt++) {
    const current = await tdb.article.findUnique({ where: { id: articleId } })
    if (!current) throw new NotFoundError('article', articleId)
    if (!ifMatchSatisfied(ifMatch, current.version)) {
      throw new PreconditionFailedError(`The article changed since you read it; it is now at version ${current.version}. Fetch it again and re-apply your change.`)
    }
    const result = await apply(current)
    if (result !== undefined) return result
    if (ifMatch) throw new PreconditionFailedError('The article changed while your change was applied. Fetch it again and re-apply your change.')
    if (attempt >= maxAttempts) throw new ConflictError('concurrent_update', 'The article is being changed by others right now; retry in a moment.')
  }
}
