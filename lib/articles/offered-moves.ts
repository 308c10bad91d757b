import type { Role } from '../db/generated/enums.ts'
import { allowedNextStates, roleMayTransition, type ApiStatus } from './article-status.ts'

/** The moves to offer a person: those the workflow allows from `from` and their role may make. */
export function offeredMoves(role: Role, from: ApiStatus): ApiStatus[] {
  return allowedNextStates(from).filter((to) => roleMayTransition(role, from, to))
}

/**
 * "Approve and publish" in one action: offered from review to whoever may make both moves,
 * in-review → approved and approved → published (approveAndPublish judges them again).
 */
export function mayApproveAndPublish(role: Role, from: ApiStatus): boolean {
  return from === 'in-review' && roleMayTransition(role, 'in-review', 'approved') && roleMayTransition(role, 'approved', 'published')
}

/** Scheduling and cancelling a schedule are publishing decisions, so they follow the publish move. */
export function mayManageSchedule(role: Role): boolean {
  return roleMayTransition(role, 'approved', 'published')
}
