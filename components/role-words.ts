import type { Role } from '@/lib/db/generated/enums'

/** "an admin", "an editor", "a writer": the article English puts before a role's name. */
export function roleArticle(role: Role): 'a' | 'an' {
  return role === 'admin' || role === 'editor' ? 'an' : 'a'
}
