import type { Role } from '../db/generated/enums.ts'
import { ServiceUnavailableError } from '../errors.ts'
import { processSingleton } from '../process-singleton.ts'
import { actingTenantSelect, type ActingTenant } from '../tenancy/actor.ts'
import { systemDb } from '../tenancy/tenant-db.ts'
import { effectiveScopes, type Scope } from './scopes.ts'
import { hashToken, looksLikeToken } from './token-secret.ts'
import { tokenBounds, type TokenBounds } from './token-bounds.ts'
import { logger } from '../ops/logger.ts'
import { hotSetting } from '../config/hot-setting.ts'

export type TokenPrincipal = {
  tokenId: string
  scopes: Scope[]
  tenant: ActingTenant
  user: { id: string; role: Role }
  /** The key's own bounds, checked on every request (token-bounds.ts), cached or not. */
  bounds: TokenBounds
}

type CacheEntry = { principal: TokenPrincipal | null; expiresAt: number }

// A few seconds of caching spares the database a lookup on every request, while a revoked
// token, a deactivated owner or a changed role still takes effect within that time.
const cacheTtlMs = () => Number(hotSetting('TOKEN_CACHE_TTL_MS') ?? 5_000)
const maxCacheEntries = 10_000
// Shared by every copy of this module in the process, so a revocation in the portal clears
// the cache /v1 reads (see process-singleton.ts).
const cache = processSingleton('token-cache', () => new Map<string, CacheEntry>())
// The lookups under way, by token hash, and how many times the cache has been cleared: a lookup
// that began before a clearing may have read what the clearing was for.
const inFlight = processSingleton('token-lookups', () => ({ byHash: new Map<string, Promise<TokenPrincipal | null>>(), clearings: 0 }))

/**
 * The token's principal, or null for an unknown token or a deactivated owner. A revoked key's
 * principal carries its revocation in `bounds`, which every request judges (tokenRefusal).
 * A lookup rejects with ServiceUnavailableError when it fails: that says nothing about the
 * key, and a 401 would make an integration throw away a good one.
 */
export function authenticateToken(token: string): TokenPrincipal | null | Promise<TokenPrincipal | null> {
  if (!looksLikeToken(token)) return null
  const tokenHash = hashToken(token)
  // A cached principal (most of a busy key's requests) is the answer itself, not a promise of it:
  // one made and awaited per request was CPU every /v1 request paid for nothing (issue 50).
  const cached = cache.get(tokenHash)
  if (cached && cached.expiresAt > Date.now()) return cached.principal
  // One lookup per key at a time: when a busy key's entry expires, every request in flight
  // would otherwise query the database for the same row at once (bench: 32 connections on one
  // key made ~20 lookups at each expiry, a latency spike every few seconds).
  const pending = inFlight.byHash.get(tokenHash)
  if (pending) return pending
  const lookup = lookUp(tokenHash).finally(() => {
    if (inFlight.byHash.get(tokenHash) === lookup) inFlight.byHash.delete(tokenHash)
  })
  inFlight.byHash.set(tokenHash, lookup)
  return lookup
}

const tokenInclude = {
  owner: { select: { id: true, role: true, active: true } },
  tenant: { select: actingTenantSelect },
} as const

function findToken(where: { tokenHash: string } | { previousTokenHash: string }) {
  return systemDb()
    .apiToken.findUnique({ where: where as { tokenHash: string }, include: tokenInclude })
    .catch((error: unknown) => {
      logger.error({ error: (error as Error).message }, 'token lookup failed')
      throw new ServiceUnavailableError('The service could not check your API key just now; retry shortly. The key itself was not judged.', 5, { cause: error })
    })
}

async function lookUp(tokenHash: string): Promise<TokenPrincipal | null> {
  const startedIn = inFlight.clearings
  // The current secret, else a secret a roll replaced: it works until its overlap lapses, and
  // after that it is refused in words that name the roll rather than as an unknown token.
  const current = await findToken({ tokenHash })
  const row = current ?? (await findToken({ previousTokenHash: tokenHash }))
  const principal: TokenPrincipal | null =
    // A revoked key still has a principal, whose bounds refuse it (token-bounds.ts): its 401s
    // are then kept in its own request log, where its owner looks for them.
    row && row.owner.active
      ? {
          tokenId: row.id,
          scopes: effectiveScopes(row.scopes, row.owner.role),
          tenant: row.tenant,
          user: { id: row.owner.id, role: row.owner.role },
          bounds: tokenBounds(row, current ? null : { rolledAt: row.rolledAt, worksUntil: row.previousTokenExpiresAt }),
        }
      : null
  // A revocation (or a role change) while this lookup ran may have come after its read: its
  // answer serves the requests that were waiting for it, but is not kept for later ones.
  if (inFlight.clearings === startedIn) {
    if (cache.size >= maxCacheEntries) cache.clear()
    cache.set(tokenHash, { principal, expiresAt: Date.now() + cacheTtlMs() })
  }
  if (principal && principal.bounds.revokedAt === null) rememberLastUse(principal.tokenId, row?.lastUsedAt ?? null)
  return principal
}

/** Drops cached lookups so a revocation in this process applies to the very next request. */
export function forgetCachedTokens(): void {
  cache.clear()
  inFlight.byHash.clear()
  inFlight.clearings++
}

const lastUseWrittenAt = processSingleton('token-last-use', () => new Map<string, number>())
const lastUseIntervalMs = 60_000

function rememberLastUse(tokenId: string, lastUsedAt: Date | null) {
  if (lastUsedAt && !lastUseWrittenAt.has(tokenId)) lastUseWrittenAt.set(tokenId, lastUsedAt.getTime())
}

/**
 * Records that a token was used, at most once a minute per token and without making the
 * request wait: a lost update only makes "last used" a minute staler.
 */
export function touchToken(tokenId: string, now = Date.now()): void {
  const written = lastUseWrittenAt.get(tokenId)
  if (written !== undefined && now - written < lastUseIntervalMs) return
  lastUseWrittenAt.set(tokenId, now)
  if (lastUseWrittenAt.size > maxCacheEntries) lastUseWrittenAt.clear()
  systemDb()
    .apiToken.update({ where: { id: tokenId }, data: { lastUsedAt: new Date(now) } })
    .catch((error: Error) => console.warn(`[tokens] could not record last use of ${tokenId}: ${error.message}`))
}
