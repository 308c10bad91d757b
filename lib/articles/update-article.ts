import type { Article } from '../db/generated/client.ts'
import { ConflictError, ForbiddenError, ValidationError } from '../errors.ts'
import type { Actor } from '../tenancy/actor.ts'
import { tenantDb } from '../tenancy/tenant-db.ts'
import { findForeignReferences, referenceErrors, uniqueTags } from './article-references.ts'
import type { ArticleChanges } from './article-writes.ts'
import { changeCurrentVersion, updateReadVersion, type ExpectedVersion } from './change-current-version.ts'
import type { UpdateArticleInput } from './article-schemas.ts'
import { cleanBody, type WrittenArticle } from './stored-body.ts'
import { editedAddress } from './article-address.ts'

/**
 * Applies a partial update. With `expectedVersion` (from an If-Match header, or the version the
 * portal's editor loaded) a concurrent change is refused with 412 instead of being overwritten.
 */
export async function updateArticle(
  actor: Actor,
  articleId: string,
  input: UpdateArticleInput,
  options: { expectedVersion?: ExpectedVersion } = {},
): Promise<WrittenArticle> {
  const tdb = tenantDb(actor.tenant.id)
  const unknown = await findForeignReferences(tdb, {
    departmentIds: input.department_id ? [input.department_id] : [],
    authorIds: input.author_id ? [input.author_id] : [],
  })
  const errors = referenceErrors(input, unknown)
  if (errors.length > 0) throw new ValidationError(errors)

  const changes: ArticleChanges = {}
  if (input.headline !== undefined) changes.headline = input.headline
  if (input.lede !== undefined) changes.lede = input.lede
  const body = cleanBody(input.body)
  if (body.body !== undefined) changes.body = body.body
  if (input.department_id !== undefined) changes.departmentId = input.department_id
  if (input.tags !== undefined) changes.tags = uniqueTags(input.tags)
  if (input.author_id !== undefined) changes.authorId = input.author_id
  // The revision this change makes names its editor (see article_revisions).
  changes.editedById = actor.user?.id ?? null

  const article = await changeCurrentVersion(actor.tenant.id, articleId, options.expectedVersion, async (current) => {
    if (current.status === 'archived') {
      throw new ConflictError('article_archived', archivedRefusal, { from_state: 'archived' })
    }
    assertWriterMayEdit(actor, current, input)

    return updateReadVersion(current, { ...changes, ...editedAddress(actor.tenant.publicSiteUrl, current, { headline: input.headline, slug: input.slug }) })
  })
  return { ...article, bodyRemoved: body.removed }
}

const archivedRefusal = 'Archived articles are read-only; restore it to draft first.'

/**
 * Why this user may not change the article's content, or null when they may. Nobody changes
 * an archived article (updateArticle refuses it with 409 article_archived). Writers work
 * on their own copy until an editor takes it over: they may change their own articles while
 * draft or in review. Editors and admins change any (API tokens follow their owner's role
 * through their scopes, so a writer's token cannot write at all).
 */
export function contentEditRefusal(user: Actor['user'], article: Pick<Article, 'authorId' | 'status'>): string | null {
  if (article.status === 'archived') return archivedRefusal
  if (user?.role !== 'writer') return null
  if (article.authorId !== user.id) return 'A writer can change only their own articles; ask an editor to change this one.'
  if (article.status !== 'draft' && article.status !== 'in_review') return 'This article has left review; ask an editor to change it.'
  return null
}

function assertWriterMayEdit(actor: Actor, article: Article, input: UpdateArticleInput): void {
  const refusal = contentEditRefusal(actor.user, article)
  if (refusal) throw new ForbiddenError(refusal)
  if (actor.user?.role === 'writer' && input.author_id !== undefined && input.author_id !== actor.user.id) {
    throw new ForbiddenError('A writer cannot hand an article to another author.')
  }
}
