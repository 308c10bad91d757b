import type { Article } from '../db/generated/client.ts'
import type { Actor } from '../tenancy/actor.ts'
import { roleMayTransition, toApiStatus, type ApiStatus } from './article-status.ts'

/**
 * What a member means to do to one article. `edit` is every change of its content: a save or
 * PATCH, a revision restore and a slug change (all of them updateArticle). `move` is a workflow
 * move to `to`; `schedule` sets or cancels a scheduled publication.
 */
export type ArticleAction = { kind: 'edit' } | { kind: 'move'; to: ApiStatus } | { kind: 'schedule' }

export const archivedRefusal = 'Archived articles are read-only; restore it to draft first.'

const notTheirOwn: Record<ArticleAction['kind'], string> = {
  edit: 'A writer can change only their own articles; ask an editor to change this one.',
  move: 'A writer can move only their own articles; ask an editor or the author to move this one.',
  schedule: 'A writer can move only their own articles; ask an editor or the author to move this one.',
}

/**
 * Why this user may not do `action` to the article, or null when they may: the one rule every
 * door asks (PATCH, transitions, restore, slug through /v1 and tRPC, and the portal deciding what
 * to offer), so what is offered and what is refused cannot drift apart.
 *
 * Writers act only on articles they author, and change their content only while it is a draft or
 * in review; their moves are the workflow's writer moves (roleMayTransition). Editors and admins
 * act on any article; the system (no user: scheduled work, the CLI) too. Nobody edits an archived
 * article (updateArticle answers that with 409 article_archived). API tokens act as their owner.
 */
export function articleActionRefusal(user: Actor['user'], article: Pick<Article, 'authorId' | 'status'>, action: ArticleAction): string | null {
  if (action.kind === 'edit' && article.status === 'archived') return archivedRefusal
  if (!user) return null
  if (user.role === 'writer' && article.authorId !== user.id) return notTheirOwn[action.kind]
  const from = toApiStatus(article.status)
  switch (action.kind) {
    case 'edit':
      return user.role === 'writer' && from !== 'draft' && from !== 'in-review' ? 'This article has left review; ask an editor to change it.' : null
    case 'move':
      return roleMayTransition(user.role, from, action.to) ? null : `A ${user.role} cannot move an article from ${from} to ${action.to}; ask an editor.`
    case 'schedule':
      // Scheduling and cancelling a schedule are publishing decisions, so they follow the publish move.
      return roleMayTransition(user.role, 'approved', 'published') ? null : `A ${user.role} cannot change a publication schedule; ask an editor.`
  }
}
