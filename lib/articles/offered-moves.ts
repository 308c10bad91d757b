import type { Role } from '../db/generated/enums.ts'
import { allowedNextStates, roleMayTransition, type ApiStatus } from './article-status.ts'

/** The moves to offer a person: those the workflow allows from `from` and their role may make. */
export function offeredMoves(role: Role, from: ApiStatus): ApiStatus[] {
  return allowedNextStates(from).filter((to) => roleMayTransition(role, from, to))
}

/** Scheduling and cancelling a schedule are publishing decisions, so they follow the publish move. */
export function mayManageSchedule(role: Role): boolean {
  return roleMayTransition(role, 'approved', 'published')
}
