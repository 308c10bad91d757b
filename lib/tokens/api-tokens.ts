import { recordAudit } from '../audit.ts'
import { ForbiddenError, NotFoundError, ValidationError } from '../errors.ts'
import { createId } from '../ids.ts'
import { assertCan } from '../auth/permissions.ts'
import type { Actor } from '../tenancy/actor.ts'
import { tenantDb } from '../tenancy/tenant-db.ts'
import { forgetCachedTokens } from './authenticate-token.ts'
import { rotationRecommendedAfterDays, type NewApiToken } from './api-token-schemas.ts'
import { grantableScopes } from './scopes.ts'
import { displayPrefix, generateToken, hashToken } from './token-secret.ts'

export type ApiTokenSummary = {
  id: string
  name: string
  prefix: string
  scopes: string[]
  ownerId: string
  ownerName: string
  createdById: string | null
  createdByName: string | null
  createdAt: Date
  lastUsedAt: Date | null
  revokedAt: Date | null
  /** A deactivated owner's tokens are refused even though they are not revoked. */
  ownerActive: boolean
  /** Not revoked and older than rotationRecommendedAfterDays. */
  rotationRecommended: boolean
}

export { rotationRecommendedAfterDays }

/**
 * A new key, owned by the admin who creates it (the system — the tokens CLI, test fixtures —
 * names the owner). Its scopes are bounded by what the owner's role may grant.
 */
export async function createApiToken(actor: Actor, input: NewApiToken & { ownerId?: string }): Promise<{ token: string; summary: ApiTokenSummary }> {
  assertCan(actor, 'admin')
  const tdb = tenantDb(actor.tenant.id)
  const { name, scopes } = input
  const ownerId = actor.user?.id ?? input.ownerId
  if (!ownerId) throw new ValidationError([{ field: 'owner', message: 'A key made by the system must name the user who owns it.' }])
  if (actor.user && input.ownerId && input.ownerId !== actor.user.id) throw new ForbiddenError('An admin creates keys of their own; the owner signs in to create theirs.')

  const owner = await tdb.user.findUnique({ where: { id: ownerId } })
  if (!owner || !owner.active) throw new NotFoundError('active user', ownerId)
  // An admin's key is their own, so the creator is the owner (or the system): the owner's role
  // bounds the scopes, as it bounds them on every request (authenticate-token.ts).
  const creator = actor.user ? owner : null
  const allowed = new Set(grantableScopes(owner.role))
  const beyond = scopes.filter((scope) => !allowed.has(scope))
  if (beyond.length > 0) throw new ForbiddenError(`A ${owner.role} cannot grant: ${beyond.join(', ')}.`, 'scope_not_grantable')

  const token = generateToken()
  const created = await tdb.$transaction(async (tx) => {
    const row = await tx.apiToken.create({
      data: {
        id: createId('tok'),
        tenantId: actor.tenant.id,
        name,
        prefix: displayPrefix(token),
        tokenHash: hashToken(token),
        scopes,
        ownerId: owner.id,
        createdById: creator?.id ?? null,
      },
    })
    await recordAudit(tx, {
      tenantId: actor.tenant.id,
      actorId: creator?.id ?? null,
      action: 'api_token.created',
      targetType: 'api_token',
      targetId: row.id,
      metadata: { name, scopes, prefix: row.prefix },
    })
    return row
  })
  return {
    token,
    summary: {
      ...pick(created),
      ownerName: owner.name,
      ownerActive: owner.active,
      createdByName: creator?.name ?? null,
    },
  }
}

function pick(row: {
  id: string; name: string; prefix: string; scopes: string[]; ownerId: string; createdById: string | null
  createdAt: Date; lastUsedAt: Date | null; revokedAt: Date | null
}) {
  const { id, name, prefix, scopes, ownerId, createdById, createdAt, lastUsedAt, revokedAt } = row
  return { id, name, prefix, scopes, ownerId, createdById, createdAt, lastUsedAt, revokedAt, rotationRecommended: !revokedAt && isRotationRecommended(createdAt) }
}

export async function listApiTokens(actor: Actor): Promise<ApiTokenSummary[]> {
  assertCan(actor, 'admin')
  const rows = await tenantDb(actor.tenant.id).apiToken.findMany({
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    include: { owner: { select: { name: true, active: true } }, createdBy: { select: { name: true } } },
  })
  return rows.map((row) => ({ ...pick(row), ownerName: row.owner.name, ownerActive: row.owner.active, createdByName: row.createdBy?.name ?? null }))
}

/** One of the newsroom's keys (never its secret), or a 404: another newsroom's id looks missing. */
export async function getApiToken(actor: Actor, tokenId: string): Promise<ApiTokenSummary> {
  assertCan(actor, 'admin')
  const row = await tenantDb(actor.tenant.id).apiToken.findFirst({
    where: { id: tokenId },
    include: { owner: { select: { name: true, active: true } }, createdBy: { select: { name: true } } },
  })
  if (!row) throw new NotFoundError('API key', tokenId)
  return { ...pick(row), ownerName: row.owner.name, ownerActive: row.owner.active, createdByName: row.createdBy?.name ?? null }
}

/** Revokes by id or display prefix; takes effect on the token's next request. */
/** Revokes a key by id or display prefix (idempotent: a revoked key stays as it was). Admins only. */
export async function revokeApiToken(actor: Actor, idOrPrefix: string): Promise<ApiTokenSummary> {
  assertCan(actor, 'admin')
  const tdb = tenantDb(actor.tenant.id)
  const row = await tdb.apiToken.findFirst({
    where: { OR: [{ id: idOrPrefix }, { prefix: idOrPrefix }] },
    include: { owner: { select: { name: true, active: true } }, createdBy: { select: { name: true } } },
  })
  if (!row) throw new NotFoundError('API key', idOrPrefix)
  const revokedAt = row.revokedAt ?? new Date()
  if (!row.revokedAt) {
    await tdb.$transaction(async (tx) => {
      await tx.apiToken.update({ where: { id: row.id }, data: { revokedAt } })
      await recordAudit(tx, {
        tenantId: actor.tenant.id,
        actorId: actor.user?.id ?? null,
        action: 'api_token.revoked',
        targetType: 'api_token',
        targetId: row.id,
        metadata: { name: row.name, prefix: row.prefix },
      })
    })
    forgetCachedTokens()
  }
  return { ...pick({ ...row, revokedAt }), ownerName: row.owner.name, ownerActive: row.owner.active, createdByName: row.createdBy?.name ?? null }
}

export function isRotationRecommended(createdAt: Date, now = new Date()): boolean {
  return now.getTime() - createdAt.getTime() > rotationRecommendedAfterDays * 24 * 60 * 60 * 1000
}
