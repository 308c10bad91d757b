import { Role } from '../db/generated/enums.ts'
import { ForbiddenError } from '../errors.ts'
import type { Actor } from '../tenancy/actor.ts'
import { grantableScopes, hasScope, type Scope } from '../tokens/scopes.ts'

/**
 * Who may do what, in one vocabulary: the API's scopes. A member's role grants the scopes
 * grantableScopes(role) lists (the same table that bounds what their keys may carry); an API
 * token is bounded further by its own scopes, which the /v1 door checks; the system (no user:
 * scheduled work, the CLI) may do everything. Every door asks this: /v1, tRPC procedures, pages
 * and the navigation, and the domain functions themselves, so a new door cannot forget it.
 */
export function can(who: Pick<Actor, 'user'> | { role: Role }, scope: Scope): boolean {
  const role = 'role' in who ? who.role : who.user?.role
  if (role === undefined) return true
  return hasScope(grantableScopes(role), scope)
}

/** The roles that have a scope, as the refusal names them ("Only admin users can do this."). */
export function rolesWith(scope: Scope): Role[] {
  return Object.values(Role).filter((role) => can({ role }, scope))
}

export function refusalFor(scope: Scope): string {
  return `Only ${rolesWith(scope).join(' or ')} users can do this.`
}

/** Refuses with 403 unless the actor may act under `scope`. */
export function assertCan(actor: Actor, scope: Scope): void {
  if (!can(actor, scope)) throw new ForbiddenError(refusalFor(scope))
}

/** As assertCan, for what only a person may do (it is recorded under their name). */
export function assertMemberCan(actor: Actor, scope: Scope): asserts actor is Actor & { user: NonNullable<Actor['user']> } {
  if (!actor.user || !can(actor, scope)) throw new ForbiddenError(refusalFor(scope))
}
