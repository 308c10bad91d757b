import { createHash, randomBytes } from 'node:crypto'
import { recordAudit } from '../audit.ts'
import { assertCan } from '../auth/permissions.ts'
import { NotFoundError } from '../errors.ts'
import { createId } from '../ids.ts'
import { processSingleton } from '../process-singleton.ts'
import { actingTenantSelect, type ActingTenant } from '../tenancy/actor.ts'
import type { Actor } from '../tenancy/actor.ts'
import { systemDb, tenantDb } from '../tenancy/tenant-db.ts'
import { commitChange } from '../events/commit-change.ts'
import { newsroomSurrogateKey } from './surrogate-keys.ts'

export const contentKeyPrefix = 'nrc_'

export type ContentKeySummary = { id: string; name: string; prefix: string; createdAt: Date; revokedAt: Date | null }

const summary = ({ id, name, prefix, createdAt, revokedAt }: ContentKeySummary): ContentKeySummary => ({ id, name, prefix, createdAt, revokedAt })
const hashKey = (key: string) => createHash('sha256').update(key).digest('hex')

/**
 * A new public content key: it reads the newsroom's published articles and nothing else, so it
 * may be embedded in a site's pages. An admin makes and revokes them (Settings → API Keys).
 */
export async function createContentKey(actor: Actor, name: string): Promise<{ key: string; summary: ContentKeySummary }> {
  assertCan(actor, 'admin')
  const key = contentKeyPrefix + randomBytes(24).toString('base64url')
  const row = await tenantDb(actor.tenant.id).$transaction(async (tx) => {
    const created = await tx.contentKey.create({
      data: { id: createId('ckey'), tenantId: actor.tenant.id, name, prefix: key.slice(0, contentKeyPrefix.length + 8), keyHash: hashKey(key), createdById: actor.user?.id ?? null },
    })
    await recordAudit(tx, { tenantId: actor.tenant.id, actorId: actor.user?.id ?? null, action: 'content_key.created', targetType: 'content_key', targetId: created.id, metadata: { name, prefix: created.prefix } })
    return created
  })
  return { key, summary: summary(row) }
}

export async function listContentKeys(actor: Actor): Promise<ContentKeySummary[]> {
  assertCan(actor, 'admin')
  const rows = await tenantDb(actor.tenant.id).contentKey.findMany({ orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] })
  return rows.map(summary)
}

/**
 * Revokes a key (idempotent). Pages a shared cache kept for it are purged through the outbox
 * with the revocation, so the key stops working there too, not only at the app.
 */
export async function revokeContentKey(actor: Actor, keyId: string): Promise<ContentKeySummary> {
  assertCan(actor, 'admin')
  const tdb = tenantDb(actor.tenant.id)
  const row = await tdb.contentKey.findFirst({ where: { id: keyId } })
  if (!row) throw new NotFoundError('content key', keyId)
  if (row.revokedAt) return summary(row)
  const revokedAt = new Date()
  await commitChange(tdb, actor.tenant.id, async (tx, emit) => {
    await tx.contentKey.update({ where: { id: row.id }, data: { revokedAt } })
    await recordAudit(tx, { tenantId: actor.tenant.id, actorId: actor.user?.id ?? null, action: 'content_key.revoked', targetType: 'content_key', targetId: row.id, metadata: { name: row.name, prefix: row.prefix } })
    await emit([{ kind: 'content.purge_requested', data: { keys: [newsroomSurrogateKey(actor.tenant.id)] } }])
  })
  keyCache.clear()
  return summary({ ...row, revokedAt })
}

// Every uncached page of the public site asks for its key: a few seconds of memory spare the
// database that lookup, and a revocation still takes effect within them on every instance.
const keyCacheTtlMs = 5_000
const keyCache = processSingleton('content-key-cache', () => new Map<string, { tenant: ActingTenant | null; expiresAt: number }>())

/** The newsroom a content key reads, or null for an unknown or revoked key. */
export async function authenticateContentKey(key: string): Promise<ActingTenant | null> {
  if (!key.startsWith(contentKeyPrefix) || key.length < contentKeyPrefix.length + 32) return null
  const keyHash = hashKey(key)
  const cached = keyCache.get(keyHash)
  if (cached && cached.expiresAt > Date.now()) return cached.tenant
  const row = await systemDb().contentKey.findUnique({ where: { keyHash }, include: { tenant: { select: actingTenantSelect } } })
  const tenant = row && !row.revokedAt ? row.tenant : null
  if (keyCache.size > 10_000) keyCache.clear()
  keyCache.set(keyHash, { tenant, expiresAt: Date.now() + keyCacheTtlMs })
  return tenant
}
