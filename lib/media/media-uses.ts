import type { ArticleStatus } from '../db/generated/enums.ts'
import type { Actor } from '../tenancy/actor.ts'
import { tenantDb } from '../tenancy/tenant-db.ts'

export type MediaUse = { article_id: string; headline: string; status: ArticleStatus }

/** The articles an image's `used_by` names, with their headlines and states, for the portal's "Used in". */
export async function describeMediaUses(actor: Actor, articleIds: readonly string[]): Promise<MediaUse[]> {
  if (articleIds.length === 0) return []
  const rows = await tenantDb(actor.tenant.id).article.findMany({ where: { id: { in: [...articleIds] } }, select: { id: true, headline: true, status: true }, orderBy: { id: 'asc' } })
  return rows.map((row) => ({ article_id: row.id, headline: row.headline, status: row.status }))
}
