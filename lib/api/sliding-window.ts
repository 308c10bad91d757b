import { randomBytes } from 'node:crypto'
import type { Redis } from 'ioredis'
import { takeBack } from './redis-take-back.ts'

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

/** How long the marker outlives the last script that renewed it: far longer than any window. */
const markerTtlMs = 24 * 60 * 60 * 1000

/**
 * Which Redis data this instance's decisions live in, so that a Redis that came back without
 * them (restarted without persistence, a failover to a replica that never had them, a FLUSHALL)
 * is noticed: its log is empty, and a budget spent in this window would be handed out again
 * whole (rate-limit.ts then decides in memory, as while Redis is away, for one window).
 *
 * How: a marker key (`<prefix>:lineage`) holds the time, on Redis's clock in µs, it was made.
 * Every window script reads it in the decision's own round trip, makes it if it is missing (SET
 * NX, atomic in the script), and is given the marker this instance saw before: if Redis holds
 * another (it was made anew since), the script decides nothing and answers {-1, marker}, which
 * is thrown as RedisDataLost. So noticing costs no round trip and no request is decided in the
 * empty log. The marker expires a day after it was last renewed (a script renews it once half
 * of that is left), so tests' prefixes leave nothing behind for good; an instance whose last
 * answer from Redis is older than the half day takes a new marker as its own, not as a loss
 * (every log it could have lost had expired by then too).
 *
 * Why a marker rather than Redis's run_id (INFO on each reconnect): run_id changes at every
 * restart, also one that kept its data (appendonly, as docs/deploy.md runs Redis), and stays the
 * same through a FLUSHALL or a key's loss; the marker answers the question that matters, whether
 * the data this instance decided in is still there. A fresh Redis (first deploy, tests) is told
 * from a lost one by this instance: one that never saw a marker takes the one it finds (or
 * makes) as its own, so it is never held to its share because Redis is new.
 *
 * What it does not see: a failover to a replica that has the marker but not the newest writes
 * (replication is asynchronous) loses the decisions of the replication lag unnoticed; an instance
 * that starts after the loss cannot tell it from a first deploy; and a marker evicted (a
 * maxmemory policy that evicts, as it may the logs themselves) reads as a loss (the safe side).
 */
export class RedisLineage {
  /** The marker as this instance first saw it; '' before its first answer from Redis. */
  known = ''
  /** When this instance noticed that Redis had come back without its data (ms); -Infinity: never. */
  lostAt = -Infinity
  /** When this instance last had an answer carrying the marker (ms, this process's clock). */
  private answeredAt = -Infinity

  constructor(readonly key: string) {}

  /** A script's answer carried `made`: the first one seen is this instance's. */
  seen(made: string): void {
    if (this.known === '') this.known = made
    this.answeredAt = Date.now()
  }

  /** A script said Redis holds another marker (`made`). True for the first answer to say so, which starts the window without Redis. */
  lost(made: string, nowMs: number): boolean {
    if (this.known === made) return false
    this.known = made
    const expired = Date.now() - this.answeredAt >= markerTtlMs / 2
    this.answeredAt = Date.now()
    // The marker this instance knew may simply have expired: nothing of any window is lost.
    if (expired) return false
    this.lostAt = nowMs
    return true
  }

  /** Whether a window of `windowMs` since the loss was noticed has yet to pass: the lost log could still have covered it. */
  recovering(windowMs: number, nowMs?: number): boolean {
    return this.lostAt !== -Infinity && (nowMs ?? Date.now()) < this.lostAt + windowMs
  }
}

/** A window script found another marker than the one this instance knows (RedisLineage): it decided nothing. */
export class RedisDataLost extends Error {
  constructor(readonly made: string) {
    super('Redis came back without the rate-limit log this instance decided in')
  }
}

/** Lua: the marker (KEYS[key]), made if missing, renewed once half its time is left; the script answers {-1, marker} and stops when ARGV[known] names another. Sets `made`. */
export const lineageLua = (key: number, known: number) => `local made = redis.call('GET', KEYS[${key}])
if not made then
  local t = redis.call('TIME')
  made = t[1] .. string.format('%06d', tonumber(t[2]))
  redis.call('SET', KEYS[${key}], made, 'NX', 'PX', ${markerTtlMs})
elseif redis.call('PTTL', KEYS[${key}]) < ${markerTtlMs / 2} then
  redis.call('PEXPIRE', KEYS[${key}], ${markerTtlMs})
end
if ARGV[${known}] ~= '' and ARGV[${known}] ~= made then return {-1, made} end
`

// KEYS[1] the log, KEYS[2] the marker (RedisLineage), KEYS[3] the key read beside. ARGV: limit,
// window ms, time ('' for Redis's clock), member, the marker known ('' for none).
// Returns {admitted 1/0, remaining, ms until the oldest leaves (or one frees), marker, read}, or {-1, marker}.
const script = (alsoRead: boolean) => `
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
${redisNowLua}${lineageLua(2, 5)}redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
if count < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[1], window)
  local oldest = tonumber(redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2])
  return {1, limit - count - 1, oldest + window - now, made${alsoRead ? ", redis.call('GET', KEYS[3]) or ''" : ''}}
end
local freeing = tonumber(redis.call('ZRANGE', KEYS[1], count - limit, count - limit, 'WITHSCORES')[2])
return {0, 0, freeing + window - now, made}
`

type WindowCommands = {
  consumeWindow: (key: string, marker: string, ...args: (string | number)[]) => Promise<unknown>
  consumeWindowAndRead: (key: string, marker: string, readKey: string, ...args: (string | number)[]) => Promise<unknown>
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
  { name: 'consumeWindow', keys: 2, lua: script(false) },
  { name: 'consumeWindowAndRead', keys: 3, lua: script(true) },
]
const withWindowCommands = (redis: Redis) => withDefinedCommands<WindowCommands>(redis, windowCommands)

// A log entry must be unique across every instance sharing Redis: a random tag per process and
// a counter, rather than random bytes per request (a synchronous fill that cost ~18 µs each).
const processTag = randomBytes(6).toString('base64url')
let sequence = 0

/**
 * Decides one request in Redis. With `readKey`, an admitted request's outcome also carries
 * that key's value (`read`: '' when the key is absent); a refused one's does not. Throws
 * RedisDataLost, deciding nothing, when Redis is not holding the data `lineage` knows.
 */
export async function consumeInRedis(redis: Redis, lineage: RedisLineage, key: string, limit: number, windowMs: number, nowMs?: number, readKey?: string): Promise<WindowOutcome & { read?: string }> {
  const member = `${nowMs ?? Date.now()}:${processTag}:${(sequence = (sequence + 1) % Number.MAX_SAFE_INTEGER)}`
  const commands = await withWindowCommands(redis)
  const args = [limit, windowMs, nowMs === undefined ? '' : String(nowMs), member, lineage.known]
  let answer: [number, number | string, number, string, string?]
  try {
    answer = (readKey === undefined ? await commands.consumeWindow(key, lineage.key, ...args) : await commands.consumeWindowAndRead(key, lineage.key, readKey, ...args)) as typeof answer
  } catch (error) {
    // Given up on (the client's command timeout), the script may still run once Redis answers
    // and count a request that was decided in memory instead: its entry is taken out again by a
    // command sent after it on the same connection, which Redis runs after it (break66).
    takeBack(redis, () => redis.zrem(key, member), { idempotent: true })
    throw error
  }
  if (answer[0] === -1) throw new RedisDataLost(String(answer[1]))
  const [allowed, remaining, resetMs, made, read] = answer as [number, number, number, string, string?]
  lineage.seen(made)
  const release = async () => {
    if (allowed === 1) await redis.zrem(key, member)
  }
  return { allowed: allowed === 1, remaining, resetMs: Math.max(0, resetMs), release, ...(read !== undefined && { read }) }
}

/**
 * The same log in this process's memory: the embedded default's limiter, and the fallback while
 * Redis is unreachable or came back without its data (rate-limit.ts; what this instance admitted
 * through Redis is recorded here too). Each key's times are kept in arrival order and the expired ones skipped
 * from the front, so a request costs the same whatever the log holds: filtering the whole log
 * on every request made each one cost its size (10,000 entries for an enterprise key at its
 * limit; bench, embedded store: get-by-id fell to a third of the list's rate as the log grew).
 */
export class MemoryWindows {
  private readonly logs = new Map<string, { times: number[]; first: number }>()
  private pruneAbove = 50_000

  consume(key: string, limit: number, windowMs: number, nowMs = Date.now()): WindowOutcome {
    const log = this.current(key, windowMs, nowMs)
    const inWindow = log.times.length - log.first
    if (inWindow < limit) {
      log.times.push(nowMs)
      const release = async () => this.forget(key, nowMs)
      return { allowed: true, remaining: limit - inWindow - 1, resetMs: log.times[log.first]! + windowMs - nowMs, release }
    }
    return { allowed: false, remaining: 0, resetMs: log.times[log.times.length - limit]! + windowMs - nowMs, release: async () => {} }
  }

  /**
   * Counts a request admitted elsewhere (in Redis) at `nowMs`, without deciding it: should
   * Redis go away or come back without its log, this instance's decisions in memory still see
   * what it admitted through Redis in the window. Only the newest `keep` are kept (the limit
   * memory will decide at): they decide as the whole log would, since the newest leave the
   * window last. Returns the time counted, for `forget`.
   */
  record(key: string, keep: number, windowMs: number, nowMs = Date.now()): number {
    const log = this.current(key, windowMs, nowMs)
    if (log.times.length - log.first >= keep) log.first = log.times.length - keep + 1
    log.times.push(nowMs)
    return nowMs
  }

  /** Takes back a request `record` counted at `at` (it turned out not to count). */
  forget(key: string, at: number): void {
    const log = this.logs.get(key)
    const index = log?.times.lastIndexOf(at) ?? -1
    if (log && index >= log.first) log.times.splice(index, 1)
  }

  /** The key's log, its times that left the window skipped. */
  private current(key: string, windowMs: number, nowMs: number): { times: number[]; first: number } {
    let log = this.logs.get(key)
    if (!log) {
      // Pruned when the keys have doubled since, so that many keys all still in their window
      // (Redis's admissions are recorded here all the time) do not cost a full pass each new one.
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
    return log
  }

  /** Drops keys whose requests have all left the window, so memory follows active clients. */
  private prune(windowMs: number, nowMs: number): void {
    for (const [key, log] of this.logs) if ((log.times.at(-1) ?? 0) <= nowMs - windowMs) this.logs.delete(key)
  }
}
