import type { Article, ArticleRevision } from '../db/generated/client.ts'
import { NotFoundError } from '../errors.ts'
import { toPublicArticles } from '../content/public-articles.ts'
import type { PublicArticle } from '../content/public-article-schema.ts'
import type { Actor } from '../tenancy/actor.ts'
import { tenantDb } from '../tenancy/tenant-db.ts'
import { getArticle } from './get-article.ts'
import { toApiStatus, type ApiStatus } from './article-status.ts'

/**
 * The article as it would be published, with one revision's text in place of the current one
 * when a revision is named: what a preview link opens (openPreview) and what the portal's
 * preview page shows, computed once.
 */
export function asPublished(article: Article, revision?: Pick<ArticleRevision, 'headline' | 'lede' | 'body' | 'departmentId' | 'tags'> | null): Article {
  if (!revision) return article
  return { ...article, headline: revision.headline, lede: revision.lede, body: revision.body, departmentId: revision.departmentId, tags: revision.tags }
}

export type ArticlePreview = {
  /** What the content API would answer for it once published (public-article-schema). */
  article: PublicArticle
  /** The author's name, as a site prints it under the headline; null when the author is gone. */
  byline: string | null
  /** Where the article is in the workflow now: the preview is of its text, not its state. */
  status: ApiStatus
  revision: { id: string; number: number } | null
}

/**
 * What an editor sees on the portal's preview page: the draft (or one of its revisions) as the
 * content API would publish it, with its byline. Any member who may read the article may see it.
 */
export async function previewArticle(actor: Actor, articleId: string, options: { revisionId?: string } = {}): Promise<ArticlePreview> {
  const current = await getArticle(actor, articleId)
  const tdb = tenantDb(actor.tenant.id)
  const revision = options.revisionId ? await tdb.articleRevision.findFirst({ where: { id: options.revisionId, articleId } }) : null
  if (options.revisionId && !revision) throw new NotFoundError('revision', options.revisionId)
  const shown = asPublished(current, revision)
  const author = await tdb.user.findUnique({ where: { id: shown.authorId }, select: { name: true } })
  return {
    article: (await toPublicArticles(actor.tenant.id, [shown]))[0]!,
    byline: author?.name ?? null,
    status: toApiStatus(current.status),
    revision: revision && { id: revision.id, number: revision.number },
  }
}
