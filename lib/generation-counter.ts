import { Command, type Redis } from 'ioredis'
import { changesCommitted } from './db/read-routing.ts'
import { processSingleton } from './process-singleton.ts'
import { firstConnectionSettled, getRedis, onAnsweringAgain, sendEvenWhileStalled } from './redis.ts'
import { withDefinedCommands } from './api/sliding-window.ts'

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

/**
 * The generation a cache keys on, from the value read at its Redis key; undefined when the key is
 * absent. An absent counter is no generation: read as 0, it was 0 again after every restart of
 * Redis without its data (or an eviction), and answers an instance kept under 0 before the last
 * acknowledged write were served again (break59). current() starts an absent counter instead.
 */
export function generationFromRedis(value: string): string | undefined {
  return value === '' ? undefined : `redis:${value}`
}

/** The Redis client, once its first connection has settled; undefined without REDIS_URL. */
export async function readyRedis(): Promise<Redis | undefined> {
  const redis = getRedis()
  if (redis && redis.status !== 'ready') await firstConnectionSettled(redis)
  return redis
}

/**
 * How long anything kept under a generation may be used: its advance is what keeps such a thing
 * exact, and one lost with Redis (the write was still answered) must leave it wrong this long at
 * most. The response cache, the list totals and the changes feed's marks all end by it.
 */
export const generationKeptSeconds = 30

/**
 * The advance: the counter plus one, or Redis's clock in microseconds when that is more. Plain
 * INCR counted again from 0 after Redis lost the counter (a restart without its data, an
 * eviction), and from a few advances back after a Sentinel failover to a replica that had not
 * received the last ones: a newsroom's generation passed through values it had before, under
 * which other instances still kept answers (response-cache.ts, for generationKeptSeconds), and a
 * read after an acknowledged write was answered with the article as it was before it (break52).
 * Every value issued is at least the time it was issued, so one issued after a loss is above
 * every value issued before it, unless the clocks of the old and new Redis differ by more than
 * the time the switch took. TIME in a script is allowed (effects are replicated, Redis 5+).
 */
const advanceScript = `
local now = redis.call('TIME')
local at = tonumber(now[1]) * 1000000 + tonumber(now[2])
local value = tonumber(redis.call('GET', KEYS[1]) or '0') or 0
if at > value then value = at else value = value + 1 end
local text = string.format('%.0f', value)
redis.call('SET', KEYS[1], text)
return text`

// How often a lost advance is made again while Redis stays connected (see retryLater).
const lostAdvanceRetryMs = 1_000

type AdvanceCommand = { advanceGeneration: (key: string) => Promise<string> }
const advanceCommands = [{ name: 'advanceGeneration', keys: 1, lua: advanceScript }]

type GenerationReads = {
  /** A GET for this newsroom is on its way to Redis. */
  inFlight: boolean
  /** The read the requests that arrived since it was sent will share. */
  next?: Promise<string | null>
  resolveNext?: (generation: string | null) => void
}

export function generationCounter(kind: 'article' | 'event', reportRedisDown: (error: Error) => void): GenerationCounter {
  const local = processSingleton(`${kind}-generation`, () => new Map<string, number>())
  const keyOf = (tenantId: string) => `newsroom:${kind}-generation:${tenantId}`
  // A change's advance is sent even while Redis stalls (lib/redis.ts): its writer is answered
  // after it, and a stall shorter than the command timeout must not lose it (break81).
  const keyPrefix = keyOf('')
  sendEvenWhileStalled((command) => (command.name === 'evalsha' || command.name === 'eval') && command.args.some((arg) => typeof arg === 'string' && arg.startsWith(keyPrefix)))
  // Per newsroom: the read sent and not yet answered, and the one that waits for it (see current).
  const reads = new Map<string, GenerationReads>()
  // Newsrooms whose advance Redis did not take (down, or too slow) after their change committed
  // and was answered, each with the number of its last such loss. Redis back with its data
  // (appendonly) still holds the generation from before the change, under which every instance
  // may keep answers: until the advance is made again, this instance caches nothing of theirs,
  // and it makes it again as soon as it can (on the next connection, or the next read).
  const unadvanced = processSingleton(`${kind}-generation-unadvanced`, () => new Map<string, number>())
  const retrying = new Set<string>()
  // A Redis that stays connected but refused the advance (full: "OOM command not allowed",
  // read-only for a moment) emits no 'ready' again: the advance is tried again every second
  // until it is made, where it waited for this instance to be asked for that newsroom, and the
  // other instances served answers from before the write for their whole 30 s (break77).
  const retryTimers = new Map<string, NodeJS.Timeout>()
  const retryLater = (redis: Redis, tenantId: string) => {
    if (!unadvanced.has(tenantId) || retryTimers.has(tenantId)) return
    const timer = setTimeout(() => {
      retryTimers.delete(tenantId)
      advanceAgain(redis, tenantId)
    }, lostAdvanceRetryMs)
    timer.unref()
    retryTimers.set(tenantId, timer)
  }
  let losses = 0
  const watched = new WeakSet<Redis>()
  const advanceAgain = (redis: Redis, tenantId: string) => {
    const loss = unadvanced.get(tenantId)
    // Not ready: the 'ready' listener (advanceLost) makes it when the connection is back.
    if (loss === undefined || retrying.has(tenantId) || redis.status !== 'ready') return
    retrying.add(tenantId)
    void withDefinedCommands<AdvanceCommand>(redis, advanceCommands)
      .then((commands) => commands.advanceGeneration(keyOf(tenantId)))
      // Another loss since this advance was sent needs an advance after it.
      .then(() => unadvanced.get(tenantId) === loss && unadvanced.delete(tenantId), () => undefined)
      .finally(() => {
        retrying.delete(tenantId)
        retryLater(redis, tenantId)
      })
  }
  const advanceLost = (redis: Redis, tenantId: string, error: Error) => {
    unadvanced.set(tenantId, ++losses)
    retryLater(redis, tenantId)
    if (!watched.has(redis)) {
      watched.add(redis)
      onAnsweringAgain(redis, () => {
        for (const lostTenant of unadvanced.keys()) advanceAgain(redis, lostTenant)
      })
    }
    reportRedisDown(error)
  }
  const send = (redis: Redis, tenantId: string, state: GenerationReads) => {
    const resolve = state.resolveNext!
    state.next = state.resolveNext = undefined
    state.inFlight = true
    // Straight onto the connection: the reads are batched here already, and the client's own
    // auto-pipelining would add a pipeline object and another turn to each.
    const read = async (): Promise<string> => {
      const value = (await redis.sendCommand(new Command('get', [keyOf(tenantId)], { replyEncoding: 'utf8' }))) as string | null
      if (value !== null) return value
      // An absent counter (Redis lost it, or never had it) is started as an advance starts it,
      // from Redis's clock, so its first value is none the newsroom had before.
      return (await withDefinedCommands<AdvanceCommand>(redis, advanceCommands)).advanceGeneration(keyOf(tenantId))
    }
    read().then(
      (value) => resolve(`redis:${value}`),
      (error: Error) => {
        // Answered first: the waiting requests go on uncached whatever reporting does.
        resolve(null)
        reportRedisDown(error)
      },
    ).finally(() => {
      state.inFlight = false
      if (state.next) send(redis, tenantId, state)
      else reads.delete(tenantId)
    })
  }
  // After Redis was away or stalled, as this instance saw it, a change committed meanwhile on
  // another instance may have lost its advance with that instance (killed before Redis answered
  // again): Redis back with its data still holds the generation from before the change, and no
  // one is left who knows (break80). So an instance that sees Redis answer again advances every
  // newsroom's generation of this kind there, and caches nothing until it has: one cache miss
  // for each newsroom's next reads, after an outage, against serving an acknowledged write's
  // old answer for generationKeptSeconds.
  const afterOutage = processSingleton(`${kind}-generation-after-outage`, () => ({ watched: new WeakSet<Redis>(), pending: false }))
  const advanceEverything = async (redis: Redis): Promise<void> => {
    try {
      const commands = await withDefinedCommands<AdvanceCommand>(redis, advanceCommands)
      let cursor = '0'
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', keyOf('*'), 'COUNT', 1000)
        cursor = next
        await Promise.all(keys.map((key) => commands.advanceGeneration(key)))
      } while (cursor !== '0')
      afterOutage.pending = false
    } catch (error) {
      reportRedisDown(error as Error)
      // Again at Redis's next answer (onAnsweringAgain), or in a second if it stays connected.
      setTimeout(() => void (afterOutage.pending && redis.status === 'ready' && advanceEverything(redis)), lostAdvanceRetryMs).unref()
    }
  }
  const watchOutages = (redis: Redis) => {
    if (afterOutage.watched.has(redis)) return
    afterOutage.watched.add(redis)
    // The first connection ends no outage this instance kept anything through.
    let answered = redis.status === 'ready'
    onAnsweringAgain(redis, () => {
      if (!answered) return void (answered = true)
      afterOutage.pending = true
      void advanceEverything(redis)
    })
  }
  const currentFrom = (redis: Redis | undefined, tenantId: string): Promise<string | null> => {
    if (!redis) return Promise.resolve(`local:${local.get(tenantId) ?? 0}`)
    watchOutages(redis)
    if (afterOutage.pending) return Promise.resolve(null)
    if (unadvanced.has(tenantId)) {
      advanceAgain(redis, tenantId)
      return Promise.resolve(null)
    }
    // What a cache needs is a generation read after its request arrived. Readers share reads
    // as a group commit shares a flush: the first one's GET is sent in the next turn, after
    // every request of this turn has asked; a request that asks while a GET is in flight
    // waits for the next one, sent as soon as that GET is answered. Under load a busy
    // newsroom's cached reads then cost Redis one command per round trip, not one each (a
    // tenth of a cached GET's CPU went to these commands, issue 50's profile), and none is
    // ever answered by a read sent before it arrived.
    let state = reads.get(tenantId)
    if (!state) reads.set(tenantId, (state = { inFlight: false }))
    if (state.next) return state.next
    const waiting = state
    state.next = new Promise((resolve) => (waiting.resolveNext = resolve))
    if (!state.inFlight) setImmediate(() => send(redis, tenantId, waiting))
    return state.next
  }
  return {
    keyOf,
    localValue: (tenantId) => local.get(tenantId) ?? 0,
    // Not read beside a decision while an advance is lost: current() says so.
    redisKey: (tenantId) => (getRedis() && !unadvanced.has(tenantId) && !afterOutage.pending ? keyOf(tenantId) : undefined),
    // Not async, as are neither of the functions it calls for a busy newsroom: every cached read
    // asks, and an async frame made a promise of its own and waited on the shared one in turns.
    current(tenantId) {
      const redis = getRedis()
      if (redis && redis.status !== 'ready') return firstConnectionSettled(redis).then(() => currentFrom(redis, tenantId))
      return currentFrom(redis, tenantId)
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
      watchOutages(redis)
      // Single commands, not an explicit pipeline: the client pipelines commands of one tick itself
      // (lib/redis.ts), and an explicit pipeline could overtake single commands still queued there.
      // By its SHA (defined once per client, lib/api/sliding-window.ts), not its text every write.
      const commands = await withDefinedCommands<AdvanceCommand>(redis, advanceCommands)
      await Promise.all(tenants.map((tenantId) => commands.advanceGeneration(keyOf(tenantId)).catch((error: Error) => advanceLost(redis, tenantId, error))))
    },
  }
}
