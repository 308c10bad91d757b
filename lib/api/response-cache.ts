import { createHash } from 'node:crypto'
import { articleGeneration } from '../articles/article-totals.ts'
import { processSingleton } from '../process-singleton.ts'
import { byteBoundedLru } from '../byte-bounded-lru.ts'
import { Doorkeeper } from '../doorkeeper.ts'
import { getRedis } from '../redis.ts'
import { generationKeptSeconds } from '../generation-counter.ts'
import { bytesPayload, payloadBytes, type TextPayload } from './text-response.ts'
import { hotSetting } from '../config/hot-setting.ts'
import { positive } from '../config/positive-setting.ts'

/** `transient`: an answer that may change without a change of the generation (a feed's tail), served but not kept. */
export type CachedBody = TextPayload & { etag: string; transient?: boolean }

// Entries live under the tenant's article generation, which every committed article change
// advances before the writer answers: a read after a write never sees the old answer, on any
// instance sharing REDIS_URL. The expiry only bounds what a lost advance could leave stale.
const ttlSeconds = generationKeptSeconds
/** How long a kept answer may be served (a caller whose answer changes by itself sooner marks it `transient`). */
export const responseCacheTtlMs = ttlSeconds * 1000
const maxEntryBytes = 512 * 1024
// A mistyped budget (`64MB`) is the default, not NaN: a budget nothing is over let the cache grow
// with every distinct query (break72).
const maxLocalBytes = () => positive(hotSetting('RESPONSE_CACHE_MAX_BYTES'), 32 * 1024 * 1024)

// An answer is kept the second time its query is asked, not the first (lib/doorkeeper.ts says
// why): a one-off query is answered from the database without a write to Redis and a heap full
// of discarded strings (bench: cold lists). The doorkeeper remembers the last 10,000-20,000 keys.
const doorkeeperGeneration = 10_000

type LocalEntry = { generation: string; payload: CachedBody; expiresAt: number }
const local = processSingleton('response cache', () => ({ entries: byteBoundedLru<LocalEntry>(), seen: new Doorkeeper(doorkeeperGeneration) }))

export function responseCacheEnabled(): boolean {
  return hotSetting('RESPONSE_CACHE') !== 'off'
}

/**
 * The answer for `key` in `tenantId`: from the cache when it was made under the tenant's current
 * generation, else `produce()`d and kept. Only the database read and the JSON rendering are
 * saved: authentication, scope, rate limit and tenancy have run before this.
 *
 * Two levels: this process's memory first, then (with REDIS_URL) Redis, shared by the instances.
 * The generation is read from Redis on every request, so a memory entry is only used while no
 * instance has changed the tenant's articles; a hit then costs one small read, not the transfer
 * and decoding of the whole answer (a 50-article list is ~200 KB). An answer is kept, and looked
 * for in Redis, from the second time this process is asked its query (askedBefore).
 * `knownGeneration` is the generation when the caller has already read it (with its rate-limit
 * decision, lib/api/with-api.ts); it must have been read after the caller's request arrived.
 * `readGeneration` reads it otherwise: the article generation, or the event generation for the
 * events API (lib/events/event-generation.ts), whose keys must not be those of article answers.
 */
export function cachedRead(
  tenantId: string,
  key: string,
  produce: () => Promise<CachedBody>,
  knownGeneration?: string,
  readGeneration: (tenantId: string) => Promise<string | null> = articleGeneration,
): Promise<CachedBody> {
  if (!responseCacheEnabled()) return produce()
  // Promise.resolve hands a promise back as it is.
  if (knownGeneration !== undefined) return Promise.resolve(readUnder(tenantId, key, produce, knownGeneration))
  return readGeneration(tenantId).then((generation) => (generation === null ? produce() : readUnder(tenantId, key, produce, generation)))
}

/**
 * cachedRead once the generation is known. A hit in this process's memory (most reads of a
 * busy newsroom) is the answer itself, not a promise of it: a promise made and awaited per
 * request, and one adopted by another, was CPU every cached read paid for nothing (issue 50).
 */
function readUnder(tenantId: string, key: string, produce: () => Promise<CachedBody>, generation: string): CachedBody | Promise<CachedBody> {
  const entryKey = entryKeyOf(tenantId, key)
  const hit = local.entries.get(entryKey)
  if (hit && hit.generation === generation && hit.expiresAt > Date.now()) return hit.payload
  // A query this process has not been asked recently is most likely asked once (a sync walking
  // its pages, a search, another article): answered from the database without a look into the
  // shared cache, a round trip that would find nothing (bench: cold get-by-id). An answer kept
  // before, now outdated by a change, is asked for often enough to look for and keep again.
  if (!hit && !local.seen.askedBefore(entryKey)) return produce()
  return readShared(entryKey, produce, generation)
}

/** Not kept here under this generation: from Redis (shared by the instances) if there, else produced and kept in both. */
async function readShared(entryKey: string, produce: () => Promise<CachedBody>, generation: string): Promise<CachedBody> {
  const redis = generation.startsWith('redis:') ? getRedis() : undefined
  if (redis) {
    const stored = await redis.getBuffer(entryKey).catch(() => null)
    const shared = stored && fromStored(stored, generation)
    if (shared) {
      keepLocally(entryKey, generation, shared)
      return shared
    }
  }
  const fresh = await produce()
  if (fresh.transient) return fresh
  if (redis && payloadBytes(fresh).length <= maxEntryBytes) {
    redis.set(entryKey, Buffer.concat([Buffer.from(`${generation}\n${fresh.etag}\n`), payloadBytes(fresh)]), 'EX', ttlSeconds).catch(() => undefined)
  }
  keepLocally(entryKey, generation, fresh)
  return fresh
}

// The entry keys of recent short queries (a get-by-id's `get:<id>`): a SHA-256 per request was
// ~3% of a cached GET's CPU in a profile of the bench's service (issue 50). Long keys (a list's
// filters) are hashed each time, so one-off queries do not fill the heap with their texts.
const entryKeys = processSingleton('response cache entry keys', () => new Map<string, string>())
const rememberedEntryKeys = 10_000

function entryKeyOf(tenantId: string, key: string): string {
  if (key.length > 120) return `newsroom:response:${tenantId}:${createHash('sha256').update(key).digest('base64url').slice(0, 27)}`
  const plain = `${tenantId}\n${key}`
  let entryKey = entryKeys.get(plain)
  if (entryKey === undefined) {
    entryKey = `newsroom:response:${tenantId}:${createHash('sha256').update(key).digest('base64url').slice(0, 27)}`
    if (entryKeys.size >= rememberedEntryKeys) entryKeys.delete(entryKeys.keys().next().value!)
    entryKeys.set(plain, entryKey)
  }
  return entryKey
}

/** A Redis entry (`generation\netag\nbody`) as a payload, when it was made under `generation`. */
function fromStored(stored: Buffer, generation: string): CachedBody | null {
  const firstBreak = stored.indexOf(10)
  const secondBreak = firstBreak < 0 ? -1 : stored.indexOf(10, firstBreak + 1)
  if (secondBreak < 0 || stored.toString('utf8', 0, firstBreak) !== generation) return null
  return Object.assign(bytesPayload(stored.subarray(secondBreak + 1)), { etag: stored.toString('utf8', firstBreak + 1, secondBreak) })
}

function keepLocally(key: string, generation: string, payload: CachedBody): void {
  // The bytes, and the text (decoded only if something reads it) or gzip the payload may keep beside them.
  const bytes = payloadBytes(payload).length * 2
  if (bytes > maxEntryBytes * 2) return
  local.entries.set(key, { generation, payload, expiresAt: Date.now() + ttlSeconds * 1000 }, bytes, maxLocalBytes())
}

/** Bytes held by this process's cache (for tests and metrics). */
export function localResponseCacheBytes(): number {
  return local.entries.bytes()
}
