import { recordAudit } from '../audit.ts'
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../errors.ts'
import { createId } from '../ids.ts'
import { assertCan } from '../auth/permissions.ts'
import type { Actor } from '../tenancy/actor.ts'
import { tenantDb } from '../tenancy/tenant-db.ts'
import { forgetCachedTokens } from './authenticate-token.ts'
import { expiryOf, rollOverlaps, rotationRecommendedAfterDays, type NewApiToken, type RollOverlap } from './api-token-schemas.ts'
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
  /** Not revoked and older than rotationRecommendedAfterDays (counted from its last roll). */
  rotationRecommended: boolean
  /** When the key stops working; null: never (the default). */
  expiresAt: Date | null
  expired: boolean
  /** CIDRs requests must come from; empty: any address. */
  allowedAddresses: string[]
  rolledAt: Date | null
  /** Until when the secret a roll replaced still works; null once it has lapsed (or there is none). */
  previousSecretWorksUntil: Date | null
}

export { rotationRecommendedAfterDays }

/**
 * A new key, owned by the admin who creates it (the system — the tokens CLI, test fixtures —
 * names the owner). Its scopes are bounded by what the owner's role may grant.
 */
export async function createApiToken(actor: Actor, input: NewApiToken & { ownerId?: string }): Promise<{ token: string; summary: ApiTokenSummary }> {
  assertCan(actor, 'admin')
  const tdb = tenantDb(actor.tenant.id)
  const { name, scopes, allowedAddresses = [] } = input
  const expiry = input.expiresAt !== undefined ? input.expiresAt : expiryOf(input)
  if (expiry && 'error' in expiry) throw new ValidationError([{ field: 'expiryDate', message: expiry.error }])
  const expiresAt = expiry
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
        expiresAt,
        allowedAddresses,
      },
    })
    await recordAudit(tx, {
      tenantId: actor.tenant.id,
      actorId: creator?.id ?? null,
      action: 'api_token.created',
      targetType: 'api_token',
      targetId: row.id,
      metadata: { name, scopes, prefix: row.prefix, expiresAt: expiresAt?.toISOString() ?? null, allowedAddresses },
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

type TokenRow = {
  id: string; name: string; prefix: string; scopes: string[]; ownerId: string; createdById: string | null
  createdAt: Date; lastUsedAt: Date | null; revokedAt: Date | null
  expiresAt: Date | null; allowedAddresses: string[]; rolledAt: Date | null; previousTokenExpiresAt: Date | null
}

function pick(row: TokenRow, now = new Date()) {
  const { id, name, prefix, scopes, ownerId, createdById, createdAt, lastUsedAt, revokedAt, expiresAt, allowedAddresses, rolledAt } = row
  const expired = expiresAt !== null && expiresAt <= now
  return {
    id, name, prefix, scopes, ownerId, createdById, createdAt, lastUsedAt, revokedAt, expiresAt, expired, allowedAddresses, rolledAt,
    previousSecretWorksUntil: row.previousTokenExpiresAt && row.previousTokenExpiresAt > now && !revokedAt ? row.previousTokenExpiresAt : null,
    // A roll is the rotation the advice asks for: its clock restarts from the new secret.
    rotationRecommended: !revokedAt && !expired && isRotationRecommended(rolledAt ?? createdAt, now),
  }
}

const withPeople = { owner: { select: { name: true, active: true } }, createdBy: { select: { name: true } } } as const

function summarise(row: TokenRow & { owner: { name: string; active: boolean }; createdBy: { name: string } | null }): ApiTokenSummary {
  return { ...pick(row), ownerName: row.owner.name, ownerActive: row.owner.active, createdByName: row.createdBy?.name ?? null }
}

export async function listApiTokens(actor: Actor): Promise<ApiTokenSummary[]> {
  assertCan(actor, 'admin')
  const rows = await tenantDb(actor.tenant.id).apiToken.findMany({
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    include: withPeople,
  })
  return rows.map(summarise)
}

/** One of the newsroom's keys (never its secret), or a 404: another newsroom's id looks missing. */
export async function getApiToken(actor: Actor, tokenId: string): Promise<ApiTokenSummary> {
  assertCan(actor, 'admin')
  const row = await tenantDb(actor.tenant.id).apiToken.findFirst({
    where: { id: tokenId },
    include: withPeople,
  })
  if (!row) throw new NotFoundError('API key', tokenId)
  return summarise(row)
}

/** Revokes a key by id or display prefix (idempotent: a revoked key stays as it was). Admins only. */
export async function revokeApiToken(actor: Actor, idOrPrefix: string): Promise<ApiTokenSummary> {
  assertCan(actor, 'admin')
  const tdb = tenantDb(actor.tenant.id)
  const row = await tdb.apiToken.findFirst({
    where: { OR: [{ id: idOrPrefix }, { prefix: idOrPrefix }] },
    include: withPeople,
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
  return summarise({ ...row, revokedAt })
}

/** A key that may still be changed: the newsroom's, and not revoked (a revoked key stays as it was revoked). */
async function changeableToken(actor: Actor, tokenId: string) {
  assertCan(actor, 'admin')
  const row = await tenantDb(actor.tenant.id).apiToken.findFirst({ where: { id: tokenId }, include: withPeople })
  if (!row) throw new NotFoundError('API key', tokenId)
  if (row.revokedAt) throw new ConflictError('api_key_revoked', `The key “${row.name}” was revoked; create a new key instead.`)
  return row
}

export async function renameApiToken(actor: Actor, input: { id: string; name: string }): Promise<ApiTokenSummary> {
  const row = await changeableToken(actor, input.id)
  if (row.name === input.name) return summarise(row)
  const updated = await tenantDb(actor.tenant.id).$transaction(async (tx) => {
    const changed = await tx.apiToken.update({ where: { id: row.id }, data: { name: input.name }, include: withPeople })
    await recordAudit(tx, {
      tenantId: actor.tenant.id, actorId: actor.user?.id ?? null, action: 'api_token.renamed', targetType: 'api_token', targetId: row.id,
      metadata: { from: row.name, to: input.name, prefix: row.prefix },
    })
    return changed
  })
  return summarise(updated)
}

/** Replaces the key's address allowlist (empty: any address); applies to its next request. */
export async function setApiTokenAllowlist(actor: Actor, input: { id: string; allowedAddresses: string[] }): Promise<ApiTokenSummary> {
  const row = await changeableToken(actor, input.id)
  const updated = await tenantDb(actor.tenant.id).$transaction(async (tx) => {
    const changed = await tx.apiToken.update({ where: { id: row.id }, data: { allowedAddresses: input.allowedAddresses }, include: withPeople })
    await recordAudit(tx, {
      tenantId: actor.tenant.id, actorId: actor.user?.id ?? null, action: 'api_token.allowlist_changed', targetType: 'api_token', targetId: row.id,
      metadata: { name: row.name, prefix: row.prefix, from: row.allowedAddresses, to: input.allowedAddresses },
    })
    return changed
  })
  forgetCachedTokens()
  return summarise(updated)
}

/**
 * Rolls the key (Stripe's "roll"): a new secret for the same key record, its scopes, bounds,
 * log and name unchanged. The secret it replaces keeps working for `overlap` (none: refused from
 * the next request on, like a revocation), so an integration can deploy the new one first.
 * A secret replaced earlier whose overlap has not lapsed stops now: only one old secret works.
 */
export async function rollApiToken(actor: Actor, input: { id: string; overlap: RollOverlap }): Promise<{ token: string; summary: ApiTokenSummary }> {
  const row = await changeableToken(actor, input.id)
  if (row.expiresAt && row.expiresAt <= new Date()) throw new ConflictError('api_key_expired', `The key “${row.name}” expired; create a new key instead.`)
  const token = generateToken()
  const now = new Date()
  const previousWorksUntil = new Date(now.getTime() + rollOverlaps[input.overlap])
  const updated = await tenantDb(actor.tenant.id).$transaction(async (tx) => {
    const changed = await tx.apiToken.update({
      where: { id: row.id },
      data: { tokenHash: hashToken(token), prefix: displayPrefix(token), previousTokenHash: row.tokenHash, previousTokenExpiresAt: previousWorksUntil, rolledAt: now },
      include: withPeople,
    })
    await recordAudit(tx, {
      tenantId: actor.tenant.id, actorId: actor.user?.id ?? null, action: 'api_token.rolled', targetType: 'api_token', targetId: row.id,
      metadata: { name: row.name, previousPrefix: row.prefix, prefix: changed.prefix, overlap: input.overlap, previousSecretWorksUntil: previousWorksUntil.toISOString() },
    })
    return changed
  })
  // The old secret's cached lookup knows nothing of the roll: without this, "none" would let it
  // work for the cache's few seconds more.
  forgetCachedTokens()
  return { token, summary: summarise(updated) }
}

export function isRotationRecommended(createdAt: Date, now = new Date()): boolean {
  return now.getTime() - createdAt.getTime() > rotationRecommendedAfterDays * 24 * 60 * 60 * 1000
}
