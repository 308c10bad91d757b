import { tenantDb } from '../tenancy/tenant-db.ts'
import { assertCan } from '../auth/permissions.ts'
import type { Actor } from '../tenancy/actor.ts'

export type ArticleFilterOptions = {
  departments: { id: string; name: string }[]
  authors: { id: string; name: string; active: boolean }[]
}

/**
 * The newsroom's departments and people, for the portal's filter and editor selects.
 * Deactivated users are included: their articles remain and must stay findable by author.
 */
export async function listArticleFilterOptions(actor: Actor): Promise<ArticleFilterOptions> {
  assertCan(actor, 'articles:read')
  const tdb = tenantDb(actor.tenant.id)
  const [departments, authors] = await Promise.all([
    tdb.department.findMany({ select: { id: true, name: true }, orderBy: [{ name: 'asc' }, { id: 'asc' }] }),
    tdb.user.findMany({ select: { id: true, name: true, active: true }, orderBy: [{ name: 'asc' }, { id: 'asc' }] }),
  ])
  return { departments, authors }
}
