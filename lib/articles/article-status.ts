import type { ArticleStatus, Role } from '../db/generated/enums.ts'

/** Article states as the API spells them. */
export const apiStatuses = ['draft', 'in-review', 'approved', 'published', 'archived'] as const
export type ApiStatus = (typeof apiStatuses)[number]

export function toApiStatus(status: ArticleStatus): ApiStatus {
  return status === 'in_review' ? 'in-review' : status
}

export function fromApiStatus(status: ApiStatus): ArticleStatus {
  return status === 'in-review' ? 'in_review' : status
}

/** The workflow: which states an article may move to from each state (contract: Articles). */
export const workflowTransitions: Record<ApiStatus, readonly ApiStatus[]> = {
  draft: ['in-review', 'archived'],
  'in-review': ['draft', 'approved', 'archived'],
  approved: ['published', 'draft', 'in-review', 'archived'],
  published: ['draft', 'archived'],
  archived: ['draft'],
}

export function allowedNextStates(from: ApiStatus): readonly ApiStatus[] {
  return workflowTransitions[from]
}

export function canTransition(from: ApiStatus, to: ApiStatus): boolean {
  return workflowTransitions[from].includes(to)
}

/**
 * The states a story is sent back to its author from: a move from one of them to draft (out of
 * review, or approved but not yet live). Unpublishing, a restore from the archive and every other
 * move reach draft otherwise. One rule for the portal's send-back dialog, the notes' "Sent back
 * by" and the author's desk (desk-article-lists.ts, whose index names these states too).
 */
export const sendBackFromStates = ['in-review', 'approved'] as const satisfies readonly ApiStatus[]

/** Whether a move from `from` to `to` sends the story back to its author. */
export function isSendBack(from: ApiStatus, to: ApiStatus): boolean {
  return to === 'draft' && (sendBackFromStates as readonly ApiStatus[]).includes(from)
}

/** The states a new article may start in; the rest are reached through transitions. */
export const creatableStatuses = ['draft', 'in-review'] as const satisfies readonly ApiStatus[]

/** Moves a writer may make; editors and admins make every move the workflow allows. */
const writerMoves: ReadonlySet<string> = new Set(['draft>in-review', 'in-review>draft'])

export function roleMayTransition(role: Role | null, from: ApiStatus, to: ApiStatus): boolean {
  if (role === null || role === 'admin' || role === 'editor') return true
  return writerMoves.has(`${from}>${to}`)
}
