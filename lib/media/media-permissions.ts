import type { Media } from '../db/generated/client.ts'
import type { Actor } from '../tenancy/actor.ts'

export type MediaAction = 'edit' | 'delete'

/**
 * Why this user may not change or delete an image, or null when they may: writers upload and
 * change their own; editors and admins any; the system (no user) too. API tokens act as their
 * owner. The /v1 handlers, the portal's procedures and its buttons all ask this.
 */
export function mediaActionRefusal(user: Actor['user'], media: Pick<Media, 'createdById'>, action: MediaAction): string | null {
  if (!user || user.role === 'editor' || user.role === 'admin') return null
  if (user.role === 'writer' && media.createdById === user.id) return null
  return action === 'edit' ? 'A writer can change only the images they uploaded; ask an editor to change this one.' : 'A writer can delete only the images they uploaded; ask an editor to delete this one.'
}
