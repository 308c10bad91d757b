import { randomBytes } from 'node:crypto'
import type { Redis } from 'ioredis'
import { lineageLua, RedisDataLost, redisNowLua, withDefinedCommands, type RedisLineage, type WindowOutcome } from './sliding-window.ts'
import { takeBack } from './redis-take-back.ts'

/**
 * The shared sliding-window log (sliding-window.ts) without a Redis round trip per request
 * (issue 50): an instance reserves a block of slots in the log in one atomic script, serves
 * its requests from the block in memory, and gives back what it did not use.
 *
 * Why it stays exact across instances. Every slot is counted in the budget's log (a reservation's
 * slots together, below), as a request is in the per-request log, so the script's count is the
 * same sum over all instances.
 * A slot handed out at once (to a request that was waiting for the reservation) is scored at
 * the script's time, as before. A prefetched slot may be used until the block's lease ends
 * (`leaseMs` after the instance sent the script, so no later than the script's time plus the
 * lease on Redis's clock), so it is scored at the script's time plus the lease: it stays in the
 * count until a window after the last moment it can be used. Then for any span of one window,
 * the latest block reserved among those that served a request in it saw every other such block
 * in the count when it was reserved (their scores are at least the span's start, and it was
 * reserved before the span's end), and the script never lets the count pass the limit. Unused
 * slots are removed at the lease's end (or expire with the key if the instance dies first).
 *
 * What a block costs: the used prefetched slots count up to one lease longer than they would
 * have, and a block's unused slots are withheld from the other instances until its lease ends
 * (at most `prefetchCap`, an eighth of the limit per instance by default; rate-limit.ts).
 *
 * RateLimit's remaining, from a block: the limit less the count the script returned, plus the
 * block's slots not yet used. That is the per-request figure as of the reservation, less what
 * this instance has used since; it does not see what other instances used within the last
 * lease, and counts their unused prefetched slots as used, so it errs both ways by at most a
 * lease's worth of traffic. Reset counts down from the reservation's answer.
 */

// The log of reservations, not of slots. A reservation's slots all count from one time, so they
// are one member of the sorted set (`<tag>:g` for those handed out at once, `<tag>:p` for the
// prefetched block), its size kept beside it in a hash, with '#' the slots of all of them. One
// member per slot made the script O(block): at 26,000 requests a second a block grew to 38,912
// slots and each reservation held Redis for 12-63 ms (every other command of every instance
// waited behind it), and the key held a member per request of the window. Counting sizes rather
// than members changes nothing of the argument above: the same slots are counted at the same
// scores. KEYS[1] the log, KEYS[2] the sizes. A budget under minimumForBlocks keeps the
// per-request log (sliding-window.ts) under another key, so a plan change across that line starts
// its count again; between plans decided in blocks it is kept. The key is new (`:reserved`): in
// a rolling deploy from the member-per-slot log, old and new instances count apart for a window.
const forgetExpiredLua = `
local function chunked(command, key, list)
  local results = {}
  for i = 1, #list, 1000 do
    local part = redis.call(command, key, unpack(list, i, math.min(i + 999, #list)))
    if type(part) == 'table' then for _, value in ipairs(part) do results[#results + 1] = value end end
  end
  return results
end
local gone = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now - window)
if #gone > 0 then
  local freed = 0
  for _, size in ipairs(chunked('HMGET', KEYS[2], gone)) do freed = freed + (tonumber(size) or 0) end
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
  chunked('HDEL', KEYS[2], gone)
  -- (Redis refuses '-0' as an integer: reservations whose sizes were lost free nothing.)
  if freed > 0 then redis.call('HINCRBY', KEYS[2], '#', -freed) end
end
-- The two keys are written and expire together. Should one go without the other (a DEL, an
-- eviction), what is left is read so that the window never passes the limit: the reservations
-- of a log whose sizes are lost count as the whole limit (no reservation ever let the count pass
-- it) until the newest leaves; the count of sizes whose log is lost, as one reservation now.
local hasLog = redis.call('EXISTS', KEYS[1]) == 1
local hasSizes = redis.call('EXISTS', KEYS[2]) == 1
if hasLog and not hasSizes then
  local newest = redis.call('ZRANGE', KEYS[1], -1, -1)[1]
  redis.call('HSET', KEYS[2], newest, limit, '#', limit)
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl < 0 then ttl = window end
  redis.call('PEXPIRE', KEYS[2], ttl)
elseif hasSizes and not hasLog then
  local lost = tonumber(redis.call('HGET', KEYS[2], '#') or '0') or 0
  redis.call('DEL', KEYS[2])
  if lost > 0 then
    redis.call('ZADD', KEYS[1], now, 'lost')
    redis.call('HSET', KEYS[2], 'lost', lost, '#', lost)
    for _, key in ipairs(KEYS) do redis.call('PEXPIRE', key, window) end
  end
end
`

// KEYS: the log, the sizes, the marker (RedisLineage, sliding-window.ts). ARGV: limit, window ms,
// time ('' for Redis's clock), reservation tag, slots wanted now, prefetch, lease ms, the marker
// known ('' for none). Returns {granted now, prefetched, count after, ms until the oldest leaves,
// ms until one frees (when short), marker}, or {-1, marker} (nothing reserved) when Redis holds
// another marker than the one known: its log is not the one this instance reserved in.
const reserveScript = `
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
${redisNowLua}${lineageLua(3, 8)}local tag = ARGV[4]
local demand = tonumber(ARGV[5])
local prefetch = tonumber(ARGV[6])
local lease = tonumber(ARGV[7])
${forgetExpiredLua}
local count = tonumber(redis.call('HGET', KEYS[2], '#') or '0') or 0
local free = limit - count
if free < 0 then free = 0 end
local granted = math.min(demand, free)
local extra = math.min(prefetch, free - granted)
if granted > 0 then
  redis.call('ZADD', KEYS[1], now, tag .. ':g')
  redis.call('HSET', KEYS[2], tag .. ':g', granted)
end
if extra > 0 then
  redis.call('ZADD', KEYS[1], now + lease, tag .. ':p')
  redis.call('HSET', KEYS[2], tag .. ':p', extra)
end
count = count + granted + extra
if granted + extra > 0 then
  redis.call('HINCRBY', KEYS[2], '#', granted + extra)
  local keep = window
  if extra > 0 then keep = window + lease end
  for _, key in ipairs(KEYS) do
    if redis.call('PTTL', key) < keep then redis.call('PEXPIRE', key, keep) end
  end
end
local reset = 0
if count > 0 then reset = tonumber(redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2]) + window - now end
local retry = 0
if granted < demand then
  -- When the slot count - limit places from the oldest leaves: reservations, oldest first.
  local entries = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
  local names = {}
  for i = 1, #entries, 2 do names[#names + 1] = entries[i] end
  local sizes = chunked('HMGET', KEYS[2], names)
  local passed = 0
  local target = math.max(0, count - limit)
  for i = 1, #names do
    passed = passed + (tonumber(sizes[i]) or 0)
    if passed > target then
      retry = tonumber(entries[2 * i]) + window - now
      break
    end
  end
end
return {granted, extra, count, reset, retry, made}
`

// ARGV: reservation, slots given back. Slots of a reservation that has left the window are not counted any more.
const giveBackScript = `
local size = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0') or 0
local back = math.min(size, tonumber(ARGV[2]))
if back <= 0 then return 0 end
redis.call('HINCRBY', KEYS[2], '#', -back)
if back == size then
  redis.call('HDEL', KEYS[2], ARGV[1])
  redis.call('ZREM', KEYS[1], ARGV[1])
else
  redis.call('HSET', KEYS[2], ARGV[1], size - back)
end
return back
`

type ReserveCommand = {
  reserveWindowBlock: (log: string, sizes: string, marker: string, ...args: (string | number)[]) => Promise<[number, number, number, number, number, string] | [-1, string]>
  giveBackWindowSlots: (log: string, sizes: string, reservation: string, slots: number) => Promise<number>
}
// As sliding-window.ts: a command is used from the turn after it was defined, so that no
// auto-pipeline opened earlier in the turn lacks it.
const reserveCommands = [
  { name: 'reserveWindowBlock', keys: 3, lua: reserveScript },
  { name: 'giveBackWindowSlots', keys: 2, lua: giveBackScript },
]
const withReserveCommand = (redis: Redis) => withDefinedCommands<ReserveCommand>(redis, reserveCommands)

type Waiter = { lineage: RedisLineage; nowMs: number | undefined; limit: number; windowMs: number; prefetchCap: number; resolve: (outcome: WindowOutcome) => void; reject: (error: unknown) => void }
type Block = { tag: string; next: number; end: number; leaseEndsAt: number; limit: number; countAfter: number; resetAt: number; prefetched: number }
/** `log` and `sizes`: the budget's two keys in Redis (the reservations, and their sizes). */
type KeyState = { log: string; sizes: string; block?: Block; waiting: Waiter[]; busy: boolean; lastReservedAt: number; nextPrefetch: number }

const processTag = randomBytes(6).toString('base64url')
let sequence = 0
const noRelease = async () => {}

/** The longest a block may be served from: a twentieth of the window, at most a second. */
export const leaseMsFor = (windowMs: number) => Math.max(1, Math.min(1_000, Math.floor(windowMs / 20)))

export class ReservedWindows {
  private readonly keys = new Map<string, KeyState>()
  /** Reservation scripts sent (each one Redis round trip), and requests served from a block without one: for tests. */
  reservations = 0
  servedFromBlocks = 0

  /**
   * Decides one request. `nowMs` (tests driving a clock) reserves exactly what is asked at that
   * time, without prefetching: a lease runs on the real clock. Requests that arrive while a
   * reservation is on its way wait for it and are served from its block, or reserve together.
   * Rejects with RedisDataLost, reserving nothing, when Redis is not holding the data `lineage`
   * knows (sliding-window.ts).
   */
  consume(redis: Redis, lineage: RedisLineage, key: string, limit: number, windowMs: number, prefetchCap: number, nowMs?: number): Promise<WindowOutcome> {
    const served = nowMs === undefined ? this.consumeAtOnce(redis, key, limit) : undefined
    if (served) return Promise.resolve(served)
    let state = this.keys.get(key)
    if (!state) {
      const log = `${key}:reserved`
      state = { log, sizes: `${log}:slots`, waiting: [], busy: false, lastReservedAt: -Infinity, nextPrefetch: 0 }
      this.keys.set(key, state)
    }
    return new Promise((resolve, reject) => {
      state.waiting.push({ lineage, nowMs, limit, windowMs, prefetchCap, resolve, reject })
      if (state.waiting.length === 1 && !state.busy) this.schedule(redis, key, state)
    })
  }

  /**
   * A request served from this instance's block now, without a promise, when the key has one
   * with slots left and nobody waiting before it (consume's first step, and rate-limit.ts's
   * decision at once); else undefined.
   */
  consumeAtOnce(redis: Redis, key: string, limit: number): WindowOutcome | undefined {
    const state = this.keys.get(key)
    if (!state || state.waiting.length > 0) return undefined
    return this.fromBlock(redis, state, limit)
  }

  /**
   * Counts `slots` admitted elsewhere (in memory, while Redis was away) in the budget's log at
   * Redis's time, as far as the limit leaves room: a full log refuses requests anyway until
   * entries leave it. Rejects with RedisDataLost as consume does.
   */
  async declare(redis: Redis, lineage: RedisLineage, key: string, limit: number, windowMs: number, slots: number): Promise<void> {
    const log = `${key}:reserved`
    const tag = `${processTag}:${(sequence = (sequence + 1) % Number.MAX_SAFE_INTEGER)}`
    const state = { log, sizes: `${log}:slots` }
    const commands = await withReserveCommand(redis)
    let answer: Awaited<ReturnType<ReserveCommand['reserveWindowBlock']>>
    try {
      answer = await commands.reserveWindowBlock(state.log, state.sizes, lineage.key, limit, windowMs, '', tag, slots, 0, leaseMsFor(windowMs), lineage.known)
    } catch (error) {
      // As a reservation given up on (reserve): taken back after it, so a retry does not count it twice.
      takeBack(redis, () => giveBackSlots(redis, state, `${tag}:g`, slots), { idempotent: true })
      throw error
    }
    if (answer[0] === -1) throw new RedisDataLost(String(answer[1]))
    lineage.seen(answer[5] as string)
  }

  /** Forgets every block (tests); their slots expire in Redis. */
  reset(): void {
    for (const state of this.keys.values()) state.block = undefined
    this.keys.clear()
  }

  private fromBlock(redis: Redis, state: KeyState, limit: number): WindowOutcome | undefined {
    const block = state.block
    if (!block || block.limit !== limit || block.next >= block.end) return undefined
    const now = performance.now()
    if (now >= block.leaseEndsAt) return undefined
    block.next++
    this.servedFromBlocks++
    return {
      allowed: true,
      remaining: Math.max(0, limit - block.countAfter + block.end - block.next),
      resetMs: Math.max(0, block.resetAt - now),
      release: () => giveBackSlots(redis, state, `${block.tag}:p`, 1),
    }
  }

  // Reserved in the next turn, so that the requests arriving in this one reserve together.
  private schedule(redis: Redis, key: string, state: KeyState): void {
    state.busy = true
    setImmediate(() => void this.reserve(redis, key, state))
  }

  private async reserve(redis: Redis, key: string, state: KeyState): Promise<void> {
    const first = state.waiting[0]!
    // One reservation decides the waiters that agree on the time and the policy.
    let size = 1
    while (size < state.waiting.length && sameTerms(state.waiting[size]!, first)) size++
    const batch = state.waiting.splice(0, size)
    const leaseMs = leaseMsFor(first.windowMs)
    const sentAt = performance.now()
    let prefetch = 0
    if (first.nowMs === undefined) {
      // Requests keep coming (the last reservation was within a lease): ask for twice the block
      // before, so a busy key reserves about once per lease; after a pause, only what is asked.
      state.nextPrefetch = sentAt - state.lastReservedAt < leaseMs ? Math.max(batch.length, state.nextPrefetch * 2) : 0
      prefetch = Math.min(first.prefetchCap, state.nextPrefetch)
      state.lastReservedAt = sentAt
    }
    const tag = `${processTag}:${(sequence = (sequence + 1) % Number.MAX_SAFE_INTEGER)}`
    this.reservations++
    try {
      const commands = await withReserveCommand(redis)
      const answer = await commands.reserveWindowBlock(state.log, state.sizes, first.lineage.key, first.limit, first.windowMs, first.nowMs === undefined ? '' : String(first.nowMs), tag, batch.length, prefetch, leaseMs, first.lineage.known)
      if (answer[0] === -1) throw new RedisDataLost(String(answer[1]))
      const [granted, extra, countAfter, resetMs, retryMs, made] = answer as [number, number, number, number, number, string]
      first.lineage.seen(made)
      this.giveBack(redis, state, state.block)
      state.block = undefined
      if (extra > 0) {
        const block: Block = { tag, next: granted, end: granted + extra, leaseEndsAt: sentAt + leaseMs, limit: first.limit, countAfter, resetAt: sentAt + resetMs, prefetched: extra }
        state.block = block
        setTimeout(() => this.leaseEnded(redis, key, state, block), leaseMs).unref()
      }
      const left = first.limit - countAfter + extra
      batch.forEach((waiter, index) => {
        if (index < granted) {
          waiter.resolve({ allowed: true, remaining: Math.max(0, left + granted - 1 - index), resetMs: Math.max(0, resetMs), release: () => giveBackSlots(redis, state, `${tag}:g`, 1) })
        } else {
          waiter.resolve({ allowed: false, remaining: 0, resetMs: Math.max(0, retryMs), release: noRelease })
        }
      })
    } catch (error) {
      // Given up on (the client's command timeout: Redis slow or paused), the script may still run
      // once Redis answers, and its slots would then stay counted, unused, for the window: a busy
      // token was refused after 88 of its 200 (break66). Whatever it reserved is given back by a
      // command sent after it on the same connection, which Redis runs after it; if it never ran,
      // there is nothing to give back. (Its waiters are decided in memory meanwhile.)
      if (!(error instanceof RedisDataLost)) {
        for (const part of [`${tag}:g`, `${tag}:p`]) takeBack(redis, () => giveBackSlots(redis, state, part, first.limit), { idempotent: true })
      }
      for (const waiter of batch) waiter.reject(error)
    }
    // Those who arrived meanwhile: from the new block while it lasts, the rest reserve again.
    while (state.waiting.length > 0 && state.waiting[0]!.nowMs === undefined) {
      const served = this.fromBlock(redis, state, state.waiting[0]!.limit)
      if (!served) break
      state.waiting.shift()!.resolve(served)
    }
    if (state.waiting.length > 0) this.schedule(redis, key, state)
    else state.busy = false
  }

  /** The block's lease is over: its unused slots go back, and the next block is sized by what was used. */
  private leaseEnded(redis: Redis, key: string, state: KeyState, block: Block): void {
    if (state.block === block) {
      state.block = undefined
      state.nextPrefetch = block.prefetched - (block.end - block.next)
      this.giveBack(redis, state, block)
    }
    if (!state.block && !state.busy && state.waiting.length === 0 && this.keys.get(key) === state) this.keys.delete(key)
  }

  private giveBack(redis: Redis, state: KeyState, block: Block | undefined): void {
    if (!block || block.next >= block.end) return
    const unused = block.end - block.next
    block.next = block.end
    // Not idempotent (it subtracts): sent again only if it never left.
    takeBack(redis, () => giveBackSlots(redis, state, `${block.tag}:p`, unused), { idempotent: false })
  }
}

/** Takes slots of a reservation back out of the count (a block's unused ones, or a request's that turned out not to count). */
async function giveBackSlots(redis: Redis, state: Pick<KeyState, 'log' | 'sizes'>, reservation: string, slots: number): Promise<void> {
  await (await withReserveCommand(redis)).giveBackWindowSlots(state.log, state.sizes, reservation, slots)
}

function sameTerms(a: Waiter, b: Waiter): boolean {
  return a.lineage === b.lineage && a.nowMs === b.nowMs && a.limit === b.limit && a.windowMs === b.windowMs && a.prefetchCap === b.prefetchCap
}
