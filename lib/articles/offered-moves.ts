import type { Article } from '../db/generated/client.ts'
import type { Actor } from '../tenancy/actor.ts'
import { articleActionRefusal } from './article-action-refusal.ts'
import { allowedNextStates, toApiStatus, type ApiStatus } from './article-status.ts'

type Judged = Pick<Article, 'authorId' | 'status'>

/** The moves to offer a person: those the workflow allows from the article's state and articleActionRefusal lets them make. */
export function offeredMoves(user: Actor['user'], article: Judged): ApiStatus[] {
  return allowedNextStates(toApiStatus(article.status)).filter((to) => articleActionRefusal(user, article, { kind: 'move', to }) === null)
}

/** Why nothing is offered (the refusal of the first move the workflow allows), or null when something is. */
export function noMovesReason(user: Actor['user'], article: Judged): string | null {
  if (offeredMoves(user, article).length > 0) return null
  const [first] = allowedNextStates(toApiStatus(article.status))
  return first ? articleActionRefusal(user, article, { kind: 'move', to: first }) : null
}

/**
 * "Approve and publish" in one action: offered from review to whoever may make both moves,
 * in-review → approved and approved → published (approveAndPublish judges them again).
 */
export function mayApproveAndPublish(user: Actor['user'], article: Judged): boolean {
  return (
    article.status === 'in_review' &&
    articleActionRefusal(user, article, { kind: 'move', to: 'approved' }) === null &&
    articleActionRefusal(user, { ...article, status: 'approved' }, { kind: 'move', to: 'published' }) === null
  )
}

export function mayManageSchedule(user: Actor['user'], article: Judged): boolean {
  return articleActionRefusal(user, article, { kind: 'schedule' }) === null
}
