import type { Article } from '../db/generated/client.ts'
import { ConflictError, ForbiddenError, ValidationError } from '../errors.ts'
import type { Actor } from '../tenancy/actor.ts'
import { tenantDb } from '../tenancy/tenant-db.ts'
import { findForeignReferences, mediaReferences, referenceErrors, uniqueTags } from './article-references.ts'
import type { ArticleChanges } from './article-writes.ts'
import { changeCurrentVersion, updateReadVersion, type ExpectedVersion } from './change-current-version.ts'
import type { UpdateArticleInput } from './article-schemas.ts'
import { cleanBody, type WrittenArticle } from './stored-body.ts'
import { editedAddress } from './article-address.ts'
import { leaseWriter } from './edit-lease.ts'
import { archivedRefusal, articleActionRefusal } from './article-action-refusal.ts'

/**
 * Applies a partial update. Every content change (a PATCH, the portal's save, a revision restore,
 * a slug change) comes through here and is judged by articleActionRefusal. With
 * `expectedVersion` (from an If-Match header, or the version the portal's editor loaded) a
 * concurrent change is refused with 412 instead of being overwritten.
 */
export async function updateArticle(
  actor: Actor,
  articleId: string,
  input: UpdateArticleInput,
  options: { expectedVersion?: ExpectedVersion; overrideLock?: boolean; restoringRevisionId?: string } = {},
): Promise<WrittenArticle> {
  const tdb = tenantDb(actor.tenant.id)
  const body = cleanBody(input.body)
  const unknown = await findForeignReferences(tdb, {
    departmentIds: input.department_id ? [input.department_id] : [],
    authorIds: input.author_id ? [input.author_id] : [],
    mediaIds: mediaReferences({ featured_media_id: input.featured_media_id, body: body.body }),
  })
  const errors = referenceErrors({ ...input, body: body.body }, unknown)
  if (errors.length > 0) throw new ValidationError(errors)

  const changes: ArticleChanges = {}
  if (input.headline !== undefined) changes.headline = input.headline
  if (input.lede !== undefined) changes.lede = input.lede
  if (body.body !== undefined) changes.body = body.body
  if (input.department_id !== undefined) changes.departmentId = input.department_id
  if (input.tags !== undefined) changes.tags = uniqueTags(input.tags)
  if (input.author_id !== undefined) changes.authorId = input.author_id
  if (input.featured_media_id !== undefined) changes.featuredMediaId = input.featured_media_id
  // The revision this change makes names its editor (see article_revisions).
  changes.editedById = actor.user?.id ?? null
  // ...and the revision it restores, if it is a restore (see updateOfReadArticle).
  if (options.restoringRevisionId) changes.restoringRevisionId = options.restoringRevisionId

  const article = await changeCurrentVersion(actor.tenant.id, articleId, options.expectedVersion, leaseWriter(actor, input.override_lock ?? options.overrideLock), async (current) => {
    if (current.status === 'archived') {
      throw new ConflictError('article_archived', archivedRefusal, { from_state: 'archived' })
    }
    assertWriterMayEdit(actor, current, input)

    return updateReadVersion(current, { ...changes, ...editedAddress(actor.tenant.publicSiteUrl, current, { headline: input.headline, slug: input.slug }) })
  })
  return { ...article, bodyRemoved: body.removed }
}

function assertWriterMayEdit(actor: Actor, article: Article, input: UpdateArticleInput): void {
  const refusal = articleActionRefusal(actor.user, article, { kind: 'edit' })
  if (refusal) throw new ForbiddenError(refusal)
  if (actor.user?.role === 'writer' && input.author_id !== undefined && input.author_id !== actor.user.id) {
    throw new ForbiddenError('A writer cannot hand an article to another author.')
  }
}
