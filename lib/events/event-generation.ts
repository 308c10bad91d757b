import type { Redis } from 'ioredis'
import { generationFromRedis } from '../generation-value.ts'
import { changesCommitted } from '../db/read-routing.ts'
import { processSingleton } from '../process-singleton.ts'
import { firstConnectionSettled, getRedis } from '../redis.ts'
import { isEventKind } from './event-kinds.ts'
import type { RecordedEvent } from './record-event.ts'

/**
 * The newsroom's event generation: what cached pages of the events API
 * (lib/api/response-cache.ts) are kept under. Events change only by being added (commitChange
 * advances it once they commit, before the writer answers) and by retention pruning
 * (pruneEvents advances it for every newsroom it deleted from), so a page cached under the
 * current generation is exactly what the database would answer. Apart from the article
 * generation (lib/articles/article-totals.ts) because user changes emit events too, and an
 * event says nothing new about articles' lists.
 *
 * With REDIS_URL it lives in Redis, shared by every instance; without it (one instance), in
 * process memory. The cache's expiry bounds what a lost advance can leave stale.
 */
const local = processSingleton('event-generation', () => new Map<string, number>())

let warnedRedisDown = false

/** The generation now; null when it cannot be read (Redis unreachable), so the caller does not cache. */
export async function eventGeneration(tenantId: string): Promise<string | null> {
  const redis = await readyRedis()
  if (!redis) return `local:${local.get(tenantId) ?? 0}`
  try {
    return generationFromRedis((await redis.get(generationKey(tenantId))) ?? '')
  } catch (error) {
    reportRedisDown(error as Error)
    return null
  }
}

/** Where the generation lives in Redis (undefined without REDIS_URL), to read it in the rate limit's round trip (lib/api/with-api.ts). */
export function eventGenerationRedisKey(tenantId: string): string | undefined {
  return getRedis() ? generationKey(tenantId) : undefined
}

/** The newsrooms whose listed events these committed events change (internal kinds are never listed). */
export function tenantsWithListedEvents(events: RecordedEvent[]): string[] {
  return [...new Set(events.filter((event) => isEventKind(event.kind)).map((event) => event.tenantId))]
}

/** Called once events of these newsrooms have been added or deleted, before anyone is told. */
export async function eventsChanged(tenantIds: Iterable<string>): Promise<void> {
  const tenants = [...new Set(tenantIds)]
  if (tenants.length === 0) return
  // Before the generation advances: a reader that sees the new generation must not read a replica without the change.
  await changesCommitted(tenants)
  const redis = await readyRedis()
  if (!redis) {
    for (const tenantId of tenants) local.set(tenantId, (local.get(tenantId) ?? 0) + 1)
    return
  }
  await Promise.all(tenants.map((tenantId) => redis.incr(generationKey(tenantId)).catch(reportRedisDown)))
}

async function readyRedis(): Promise<Redis | undefined> {
  const redis = getRedis()
  if (redis && redis.status !== 'ready') await firstConnectionSettled(redis)
  return redis
}

const generationKey = (tenantId: string) => `newsroom:event-generation:${tenantId}`

function reportRedisDown(error: Error) {
  if (warnedRedisDown) return
  warnedRedisDown = true
  console.warn(`[event-generation] Redis unreachable (${error.message}); event pages are read from the database until it is back.`)
  setTimeout(() => (warnedRedisDown = false), 60_000).unref()
}
