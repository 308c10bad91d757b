import { createHash } from 'node:crypto'
import { articleGenerationWith } from '../articles/article-totals.ts'
import { processSingleton } from '../process-singleton.ts'
import { getRedis } from '../redis.ts'

export type CachedBody = { body: string; etag: string }

// Entries live under the tenant's article generation, which every committed article change
// advances before the writer answers: a read after a write never sees the old answer, on any
// instance sharing REDIS_URL. The expiry only bounds what a lost advance could leave stale.
const ttlSeconds = 30
const maxEntryBytes = 512 * 1024
const maxLocalBytes = () => Number(process.env.RESPONSE_CACHE_MAX_BYTES ?? 32 * 1024 * 1024)

type LocalEntry = { generation: string; etag: string; body: string; bytes: number; expiresAt: number }
const local = processSingleton('response cache', () => ({ entries: new Map<string, LocalEntry>(), bytes: 0 }))

export function responseCacheEnabled(): boolean {
  return process.env.RESPONSE_CACHE !== 'off'
}

/**
 * The answer for `key` in `tenantId`: from the cache when it was made under the tenant's current
 * generation, else `produce()`d and kept. Only the database read and the JSON rendering are
 * saved: authentication, scope, rate limit and tenancy have run before this.
 */
export async function cachedRead(tenantId: string, key: string, produce: () => Promise<CachedBody>): Promise<CachedBody> {
  if (!responseCacheEnabled()) return produce()
  const entryKey = `newsroom:response:${tenantId}:${createHash('sha256').update(key).digest('base64url').slice(0, 27)}`
  const read = await articleGenerationWith(tenantId, entryKey)
  if (read === null) return produce()
  const { generation, value: stored } = read
  const redis = generation.startsWith('redis:') ? getRedis() : undefined

  if (redis) {
    if (stored) {
      const [storedGeneration, etag] = stored.split('\n', 2)
      if (storedGeneration === generation && etag) return { etag, body: stored.slice(storedGeneration.length + etag.length + 2) }
    }
    const fresh = await produce()
    if (Buffer.byteLength(fresh.body) <= maxEntryBytes) {
      redis.set(entryKey, `${generation}\n${fresh.etag}\n${fresh.body}`, 'EX', ttlSeconds).catch(() => undefined)
    }
    return fresh
  }

  const hit = local.entries.get(entryKey)
  if (hit && hit.generation === generation && hit.expiresAt > Date.now()) {
    // Most recently used last: eviction takes from the front.
    local.entries.delete(entryKey)
    local.entries.set(entryKey, hit)
    return { etag: hit.etag, body: hit.body }
  }
  const fresh = await produce()
  keepLocally(entryKey, { generation, ...fresh, bytes: Buffer.byteLength(fresh.body), expiresAt: Date.now() + ttlSeconds * 1000 })
  return fresh
}

function keepLocally(key: string, entry: LocalEntry): void {
  const previous = local.entries.get(key)
  if (previous) {
    local.entries.delete(key)
    local.bytes -= previous.bytes
  }
  if (entry.bytes > maxEntryBytes) return
  const budget = maxLocalBytes()
  for (const [oldestKey, oldest] of local.entries) {
    if (local.bytes + entry.bytes <= budget) break
    local.entries.delete(oldestKey)
    local.bytes -= oldest.bytes
  }
  local.entries.set(key, entry)
  local.bytes += entry.bytes
}

/** Bytes held by this process's cache (for tests and metrics). */
export function localResponseCacheBytes(): number {
  return local.bytes
}
