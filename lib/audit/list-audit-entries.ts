import { tenantDb } from '../tenancy/tenant-db.ts'
import { assertCan } from '../auth/permissions.ts'
import type { Actor } from '../tenancy/actor.ts'

export type AuditEntryView = {
  id: string
  action: string
  actor: { id: string; name: string; email: string } | null
  targetType: string
  targetId: string
  /** What a person recognises the target by: a key's name, a webhook's url, a user's e-mail. */
  targetLabel: string
  metadata: Record<string, unknown>
  createdAt: Date
}

export type AuditPage = { items: AuditEntryView[]; total: number; limit: number; offset: number; nextOffset: number | null }

export const auditPageSize = 50

function labelOf(metadata: Record<string, unknown>, targetId: string): string {
  const text = (key: string) => (typeof metadata[key] === 'string' && metadata[key] !== '' ? (metadata[key] as string) : null)
  const name = text('name')
  const email = text('email')
  if (name && email) return `${name} (${email})`
  return name ?? text('url') ?? email ?? targetId
}

/** The newsroom's audit trail, newest first. */
export async function listAuditEntries(actor: Actor, page: { limit?: number; offset?: number } = {}): Promise<AuditPage> {
  assertCan(actor, 'admin')
  const limit = Math.min(Math.max(Math.trunc(page.limit ?? auditPageSize), 1), 200)
  const offset = Math.max(Math.trunc(page.offset ?? 0), 0)
  const tdb = tenantDb(actor.tenant.id)
  const [rows, total] = await Promise.all([
    tdb.auditEntry.findMany({
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      skip: offset,
      take: limit,
      include: { actor: { select: { id: true, name: true, email: true } } },
    }),
    tdb.auditEntry.count(),
  ])
  const items = rows.map((row): AuditEntryView => {
    const metadata = row.metadata && typeof row.metadata === 'object' && !Array.isArray(row.metadata) ? (row.metadata as Record<string, unknown>) : {}
    return {
      id: row.id,
      action: row.action,
      actor: row.actor,
      targetType: row.targetType,
      targetId: row.targetId,
      targetLabel: labelOf(metadata, row.targetId),
      metadata,
      createdAt: row.createdAt,
    }
  })
  return { items, total, limit, offset, nextOffset: offset + items.length < total ? offset + limit : null }
}
