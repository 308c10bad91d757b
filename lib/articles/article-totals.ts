import { createHash } from 'node:crypto'
import type { Redis } from 'ioredis'
import { processSingleton } from '../process-singleton.ts'
import { generationCounter, generationKeptSeconds, readyRedis } from '../generation-counter.ts'

/**
 * The `total` of article lists, counted once per change instead of once per request.
 *
 * An exact count(*) over a newsroom's archive costs more than the page it accompanies (14 ms
 * for 100,000 articles, against 2 ms for the page; bench/results), and integrations poll the
 * same lists over and over. So a total is cached under the tenant's *generation*, which every
 * committed article change advances (commitArticleChange calls articlesChanged after commit, before
 * the writer answers its client): a client that creates an article and then lists sees it
 * counted. A total is only ever used under the generation it was counted in.
 *
 * With REDIS_URL the generation and totals live in Redis, shared by every instance; without
 * it (the embedded default: one instance), in process memory. If Redis cannot be reached the
 * list counts every time. The expiry bounds what a lost advance (a crash between commit and
 * dispatch, Redis unreachable for the writer only) can leave stale.
 */
const totalTtlSeconds = generationKeptSeconds
const maxLocalEntries = 10_000

const generation = generationCounter('article', reportRedisDown)
const localTotals = processSingleton('article-totals', () => new Map<string, { generation: number; total: number; expiresAt: number }>())
// Counts running in this process, by tenant, filter and generation: the requests that ask for a
// total nobody has counted yet join the one count instead of each starting their own. At
// 1,000,000 articles a tag's count read 40,000 rows for 3.5 s on a cold cache, and 32
// connections asking at once each ran it: PostgreSQL saturated and requests timed out (bench
// 2026-11-26-14-46, tag=tag-7: 38.6 req/s, p99 9.2 s).
const countsInFlight = processSingleton('article-totals, counting', () => new Map<string, Promise<number>>())

function countOnce(key: string, count: () => Promise<number>): Promise<number> {
  let counting = countsInFlight.get(key)
  if (!counting) {
    counting = count().finally(() => countsInFlight.delete(key))
    countsInFlight.set(key, counting)
  }
  return counting
}

let warnedRedisDown = false

/** The list's total for `filter` in `tenantId`: cached for the tenant's current generation, else counted. */
export async function articleTotal(tenantId: string, filter: unknown, count: () => Promise<number>): Promise<number> {
  const filterKey = createHash('sha256').update(JSON.stringify(filter)).digest('base64url').slice(0, 22)
  const redis = await readyRedis()
  return redis ? redisTotal(redis, tenantId, filterKey, count) : localTotal(tenantId, filterKey, count)
}

/**
 * The tenant's article generation now, for caches that must not outlive a change (the response
 * cache); null when it cannot be read (Redis unreachable), so the caller does not cache.
 */
export const articleGeneration = (tenantId: string): Promise<string | null> => generation.current(tenantId)

/**
 * Where the tenant's generation lives in Redis (undefined without REDIS_URL), so that a request
 * can read it in a round trip it makes anyway (its rate-limit decision's, lib/api/with-api.ts).
 */
export const articleGenerationRedisKey = (tenantId: string): string | undefined => generation.redisKey(tenantId)

/** The tenant's generation's Redis key, whatever state the counter is in (for tests that play Redis losing it). */
export const articleGenerationKey = (tenantId: string): string => generation.keyOf(tenantId)

/** Called once the changes to these tenants' articles have committed: their cached totals no longer hold. */
export const articlesChanged = (tenantIds: Iterable<string>): Promise<void> => generation.advance(tenantIds)

async function redisTotal(redis: Redis, tenantId: string, filterKey: string, count: () => Promise<number>): Promise<number> {
  const key = totalKey(tenantId, filterKey)
  let current: string
  try {
    const [storedGeneration, cached] = await redis.mget(generation.keyOf(tenantId), key)
    current = storedGeneration ?? '0'
    if (cached?.startsWith(`${current}:`)) return Number(cached.slice(current.length + 1))
  } catch (error) {
    reportRedisDown(error as Error)
    return count()
  }
  // Joined only under the generation it counts for: a request after a change counts afresh.
  const total = await countOnce(`${key}@${current}`, count)
  // Not awaited: the answer does not depend on it, and a lost write only costs a recount.
  redis.set(key, `${current}:${total}`, 'EX', totalTtlSeconds).catch(reportRedisDown)
  return total
}

async function localTotal(tenantId: string, filterKey: string, count: () => Promise<number>): Promise<number> {
  const key = totalKey(tenantId, filterKey)
  const current = generation.localValue(tenantId)
  const cached = localTotals.get(key)
  if (cached && cached.generation === current && cached.expiresAt > Date.now()) return cached.total
  const total = await countOnce(`${key}@${current}`, count)
  if (localTotals.size >= maxLocalEntries) localTotals.clear()
  localTotals.set(key, { generation: current, total, expiresAt: Date.now() + totalTtlSeconds * 1000 })
  return total
}

const totalKey = (tenantId: string, filterKey: string) => `newsroom:article-total:${tenantId}:${filterKey}`

function reportRedisDown(error: Error) {
  if (warnedRedisDown) return
  warnedRedisDown = true
  console.warn(`[article-totals] Redis unreachable (${error.message}); lists count their totals every time until it is back.`)
  setTimeout(() => (warnedRedisDown = false), 60_000).unref()
}
