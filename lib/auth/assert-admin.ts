import { ForbiddenError } from '../errors.ts'
import type { Actor } from '../tenancy/actor.ts'

/**
 * Managing people, departments and integrations is an admin's job. The portal's procedures
 * check the role too; this keeps the rule true for any other door into the same functions.
 */
export function assertAdmin(actor: Actor): asserts actor is Actor & { user: { id: string; role: 'admin' } } {
  if (actor.user?.role !== 'admin') throw new ForbiddenError('Only admins can do this.')
}
