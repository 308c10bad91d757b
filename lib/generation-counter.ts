import type { Redis } from 'ioredis'
import { changesCommitted } from './db/read-routing.ts'
import { processSingleton } from './process-singleton.ts'
import { firstConnectionSettled, getRedis } from './redis.ts'

/**
 * A per-newsroom counter that every committed change of one kind advances (articles,
 * lib/articles/article-totals.ts; events, lib/events/event-generation.ts), so a cache keyed on it
 * never outlives a change. With REDIS_URL it lives in Redis, shared by every instance; without it
 * (the embedded default: one instance), in process memory.
 */
export type GenerationCounter = {
  /** The generation now; null when it cannot be read (Redis unreachable), so the caller does not cache. */
  current(tenantId: string): Promise<string | null>
  /** Where it lives in Redis (undefined without REDIS_URL), to read it in a round trip the request makes anyway (lib/api/with-api.ts). */
  redisKey(tenantId: string): string | undefined
  /** Its Redis key, for a caller that reads it beside another key in one command. */
  keyOf(tenantId: string): string
  /** The in-process value, without Redis. */
  localValue(tenantId: string): number
  /** Called once changes of these newsrooms have committed, before anyone is told. */
  advance(tenantIds: Iterable<string>): Promise<void>
}

/** The generation a cache keys on, from the value read at its Redis key ('' when absent). */
export function generationFromRedis(value: string): string {
  return `redis:${value || '0'}`
}

/** The Redis client, once its first connection has settled; undefined without REDIS_URL. */
export async function readyRedis(): Promise<Redis | undefined> {
  const redis = getRedis()
  if (redis && redis.status !== 'ready') await firstConnectionSettled(redis)
  return redis
}

export function generationCounter(kind: 'article' | 'event', reportRedisDown: (error: Error) => void): GenerationCounter {
  const local = processSingleton(`${kind}-generation`, () => new Map<string, number>())
  const keyOf = (tenantId: string) => `newsroom:${kind}-generation:${tenantId}`
  // Per newsroom, the read not yet sent (see current).
  const reading = new Map<string, Promise<string | null>>()
  return {
    keyOf,
    localValue: (tenantId) => local.get(tenantId) ?? 0,
    redisKey: (tenantId) => (getRedis() ? keyOf(tenantId) : undefined),
    async current(tenantId) {
      const redis = await readyRedis()
      if (!redis) return `local:${local.get(tenantId) ?? 0}`
      // The reads asked for in one turn share one GET, sent in the next turn, after every one of
      // them was asked: what a cache needs is a generation read after its request arrived. Under
      // load, a busy newsroom's cached reads then cost Redis one command per turn, not one each.
      let read = reading.get(tenantId)
      if (!read) {
        read = new Promise((resolve) =>
          setImmediate(() => {
            reading.delete(tenantId)
            redis.get(keyOf(tenantId)).then(
              (value) => resolve(generationFromRedis(value ?? '')),
              (error: Error) => {
                reportRedisDown(error)
                resolve(null)
              },
            )
          }),
        )
        reading.set(tenantId, read)
      }
      return read
    },
    async advance(tenantIds) {
      const tenants = [...new Set(tenantIds)]
      if (tenants.length === 0) return
      // Before the generation advances: a reader that sees the new generation must not read a replica without the change.
      await changesCommitted(tenants)
      const redis = await readyRedis()
      if (!redis) {
        for (const tenantId of tenants) local.set(tenantId, (local.get(tenantId) ?? 0) + 1)
        return
      }
      // Single commands, not an explicit pipeline: the client pipelines commands of one tick itself
      // (lib/redis.ts), and an explicit pipeline could overtake single commands still queued there.
      await Promise.all(tenants.map((tenantId) => redis.incr(keyOf(tenantId)).catch(reportRedisDown)))
    },
  }
}
