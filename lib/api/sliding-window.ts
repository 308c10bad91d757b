import { randomBytes } from 'node:crypto'
import type { Redis } from 'ioredis'

/**
 * A sliding-window log: a request is admitted when fewer than `limit` requests were admitted in
 * the `windowMs` before it, so no span of that length ever admits more than the limit (a fixed
 * window lets twice the limit through across its edge; GCRA lets a full burst plus a window's
 * refill through, also up to twice). The cost is one entry per admitted request per key (1,000
 * for a standard token), which Redis keeps in one sorted set that expires with its newest entry.
 * Refused requests are not logged: a client that keeps retrying is admitted again as soon as
 * its oldest request leaves the window, which is what Retry-After tells it.
 */
export type WindowOutcome = {
  allowed: boolean
  remaining: number
  /** ms until the oldest counted request leaves the window. */
  resetMs: number
  /** Takes this request back out of the log (it turned out not to count); a no-op when refused. */
  release: () => Promise<void>
}

// One atomic script per decision, so instances sharing Redis never both take the last slot.
// The time is Redis's own (TIME) unless the caller passes one (tests drive a clock), so the
// instances' clocks need not agree. With a second key, the script also returns that key's
// value (read after the decision): a request that needs one more small value from Redis (a
// cached GET, its tenant's change generation) gets it in the same round trip.
/** Lua: `now` from ARGV[3], or Redis's own clock when it is '' (shared by every window script). */
export const redisNowLua = `local now = tonumber(ARGV[3])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
`

const script = (alsoRead: boolean) => `
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
${redisNowLua}redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
if count < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[1], window)
  local oldest = tonumber(redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2])
  return {1, limit - count - 1, oldest + window - now${alsoRead ? ", redis.call('GET', KEYS[2]) or ''" : ''}}
end
local freeing = tonumber(redis.call('ZRANGE', KEYS[1], count - limit, count - limit, 'WITHSCORES')[2])
return {0, 0, freeing + window - now}
`

type WindowCommands = {
  consumeWindow: (key: string, ...args: (string | number)[]) => Promise<unknown>
  consumeWindowAndRead: (key: string, readKey: string, ...args: (string | number)[]) => Promise<unknown>
}
const commandsDefined = new WeakMap<Redis, Map<object, { ready: boolean; defined: Promise<void> }>>()

// Sent as EVALSHA with the script's hash (ioredis loads it on first use or after a Redis
// restart): EVAL would send the whole script text with every request, the largest write the
// limiter made.
//
// ioredis copies a client's commands into an auto-pipeline when it opens one (the first command
// of a tick), so a command defined later in that tick is missing from it: sent there, it failed
// with "pipeline[functionName] is not a function" and an uncaught exception that left the request
// unanswered (a fresh instance's first requests, tests/cluster). So the commands are used from the
// turn after they were defined, by every request that arrived meanwhile.
export async function withDefinedCommands<Commands>(redis: Redis, commands: { name: string; keys: number; lua: string }[]): Promise<Redis & Commands> {
  let perClient = commandsDefined.get(redis)
  if (!perClient) commandsDefined.set(redis, (perClient = new Map()))
  // Keyed by the list itself (a module constant per caller): nothing is built per request.
  let state = perClient.get(commands)
  if (!state) {
    for (const command of commands) redis.defineCommand(command.name, { numberOfKeys: command.keys, lua: command.lua })
    const created = { ready: false, defined: new Promise<void>((resolve) => setImmediate(resolve)) }
    void created.defined.then(() => (created.ready = true))
    perClient.set(commands, created)
    state = created
  }
  if (!state.ready) await state.defined
  return redis as Redis & Commands
}

const windowCommands = [
  { name: 'consumeWindow', keys: 1, lua: script(false) },
  { name: 'consumeWindowAndRead', keys: 2, lua: script(true) },
]
const withWindowCommands = (redis: Redis) => withDefinedCommands<WindowCommands>(redis, windowCommands)

// A log entry must be unique across every instance sharing Redis: a random tag per process and
// a counter, rather than random bytes per request (a synchronous fill that cost ~18 µs each).
const processTag = randomBytes(6).toString('base64url')
let sequence = 0

/**
 * Decides one request in Redis. With `readKey`, an admitted request's outcome also carries
 * that key's value (`read`: '' when the key is absent); a refused one's does not.
 */
export async function consumeInRedis(redis: Redis, key: string, limit: number, windowMs: number, nowMs?: number, readKey?: string): Promise<WindowOutcome & { read?: string }> {
  const member = `${nowMs ?? Date.now()}:${processTag}:${(sequence = (sequence + 1) % Number.MAX_SAFE_INTEGER)}`
  const commands = await withWindowCommands(redis)
  const args = [limit, windowMs, nowMs === undefined ? '' : String(nowMs), member]
  const [allowed, remaining, resetMs, read] = (readKey === undefined ? await commands.consumeWindow(key, ...args) : await commands.consumeWindowAndRead(key, readKey, ...args)) as [number, number, number, string?]
  const release = async () => {
    if (allowed === 1) await redis.zrem(key, member)
  }
  return { allowed: allowed === 1, remaining, resetMs: Math.max(0, resetMs), release, ...(read !== undefined && { read }) }
}

/**
 * The same log in this process's memory: the embedded default's limiter, and the fallback while
 * Redis is unreachable. Each key's times are kept in arrival order and the expired ones skipped
 * from the front, so a request costs the same whatever the log holds: filtering the whole log
 * on every request made each one cost its size (10,000 entries for an enterprise key at its
 * limit; bench, embedded store: get-by-id fell to a third of the list's rate as the log grew).
 */
export class MemoryWindows {
  private readonly logs = new Map<string, { times: number[]; first: number }>()
  private pruneAbove = 50_000

  consume(key: string, limit: number, windowMs: number, nowMs = Date.now()): WindowOutcome {
    let log = this.logs.get(key)
    if (!log) {
      // Pruned again only once the keys have doubled since: many keys all still in their window
      // made a full pass for each new one (150,000 keys took 72 s).
      if (this.logs.size > this.pruneAbove) {
        this.prune(windowMs, nowMs)
        this.pruneAbove = Math.max(50_000, 2 * this.logs.size)
      }
      log = { times: [], first: 0 }
      this.logs.set(key, log)
    }
    const { times } = log
    while (log.first < times.length && times[log.first]! <= nowMs - windowMs) log.first++
    // Expired times are dropped in bulk once they are the larger part, not one shift at a time.
    if (log.first > 64 && log.first * 2 > times.length) {
      log.times = times.slice(log.first)
      log.first = 0
    }
    const inWindow = log.times.length - log.first
    if (inWindow < limit) {
      log.times.push(nowMs)
      const release = async () => {
        const current = this.logs.get(key)
        const at = current?.times.lastIndexOf(nowMs) ?? -1
        if (current && at >= current.first) current.times.splice(at, 1)
      }
      return { allowed: true, remaining: limit - inWindow - 1, resetMs: log.times[log.first]! + windowMs - nowMs, release }
    }
    return { allowed: false, remaining: 0, resetMs: log.times[log.times.length - limit]! + windowMs - nowMs, release: async () => {} }
  }

  /** Drops keys whose requests have all left the window, so memory follows active clients. */
  private prune(windowMs: number, nowMs: number): void {
    for (const [key, log] of this.logs) if ((log.times.at(-1) ?? 0) <= nowMs - windowMs) this.logs.delete(key)
  }
}
