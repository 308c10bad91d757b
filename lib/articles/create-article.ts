import { ValidationError } from '../errors.ts'
import { createId } from '../ids.ts'
import type { Actor } from '../tenancy/actor.ts'
import { tenantDb } from '../tenancy/tenant-db.ts'
import { commitArticleChange } from './commit-article-change.ts'
import { findForeignReferences, referenceErrors, uniqueTags } from './article-references.ts'
import { toArticleRecord } from './article-record.ts'
import type { CreateArticleInput } from './article-schemas.ts'
import { fromApiStatus } from './article-status.ts'
import { cleanBody, type WrittenArticle } from './stored-body.ts'

export async function createArticle(actor: Actor, input: CreateArticleInput): Promise<WrittenArticle> {
  const tdb = tenantDb(actor.tenant.id)
  const authorId = input.author_id ?? actor.user?.id
  if (!authorId) throw new ValidationError([{ field: 'author_id', message: 'author_id is required when the system creates an article.' }])

  const unknown = await findForeignReferences(tdb, {
    departmentIds: input.department_id ? [input.department_id] : [],
    authorIds: input.author_id ? [input.author_id] : [],
  })
  const errors = referenceErrors(input, unknown)
  if (errors.length > 0) throw new ValidationError(errors)

  const body = cleanBody(input.body ?? null)
  const article = await commitArticleChange(tdb, actor.tenant.id, async (tx, emit) => {
    const article = await tx.article.create({
      data: {
        id: createId('art'),
        tenantId: actor.tenant.id,
        headline: input.headline,
        lede: input.lede ?? null,
        body: body.body,
        departmentId: input.department_id ?? null,
        tags: uniqueTags(input.tags),
        status: fromApiStatus(input.status ?? 'draft'),
        authorId,
        // The first revision names who created it.
        editedById: actor.user?.id ?? null,
      },
    })
    await emit([{ kind: 'article.created', data: toArticleRecord(article) }])
    return article
  })
  return { ...article, bodyRemoved: body.removed }
}
