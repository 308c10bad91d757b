import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testRedisUrl } from '../../tests/support/test-env.ts'
import { ReservedWindows } from './reserved-window.ts'
import { RedisLineage } from './sliding-window.ts'

// A busy token's budget, as Redis holds it: what one reservation costs Redis must not grow with
// the block. One member per slot made a block of 38,912 slots hold Redis for 63 ms (every other
// command of every instance waited), and the key held a member per request of the window.
const prefix = `test:rw:${randomBytes(6).toString('hex')}`
let redis: Redis
// The marker of the Redis data the budgets are reserved in (sliding-window.ts).
const lineage = new RedisLineage(`${prefix}:lineage`)

beforeAll(async () => {
  redis = new Redis(testRedisUrl, { maxRetriesPerRequest: 1 })
  await redis.ping()
})

afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`)
  if (keys.length > 0) await redis.del(...keys)
  redis.disconnect()
})

/** Every key the budget has in Redis, with its members (a sorted set's) or fields (a hash's). */
async function footprint(key: string): Promise<{ keys: string[]; entries: number }> {
  const keys = (await redis.keys(`${key}*`)).sort()
  let entries = 0
  for (const name of keys) entries += (await redis.type(name)) === 'zset' ? await redis.zcard(name) : await redis.hlen(name)
  return { keys, entries }
}

describe('a budget reserved in blocks', () => {
  it('keeps a few entries in Redis however many slots its blocks hold, and counts each slot once', async () => {
    const windows = new ReservedWindows()
    const key = `${prefix}:token:busy`
    const limit = 10_000_000
    // A request at a time, each answered before the next: every block is used up within its
    // lease, so the next one is twice as large, up to the cap.
    let admitted = 0
    while (windows.servedFromBlocks < 60_000) {
      const outcome = await windows.consume(redis, lineage, key, limit, 60_000, 40_000)
      expect(outcome.allowed).toBe(true)
      admitted++
    }
    // Thousands of slots each, in a handful of reservations.
    expect(windows.reservations).toBeLessThan(40)
    const { entries } = await footprint(key)
    // Per reservation at most two members in the log and their two sizes, and the total.
    expect(entries).toBeLessThanOrEqual(4 * windows.reservations + 1)
    // RateLimit's remaining as a client sees it: nothing counted twice, nothing lost (the last
    // block's unused slots are still withheld until its lease ends).
    const last = await windows.consume(redis, lineage, key, limit, 60_000, 40_000)
    expect(limit - last.remaining).toBeGreaterThanOrEqual(admitted + 1)
    expect(limit - last.remaining).toBeLessThanOrEqual(admitted + 1 + 40_000)
  }, 60_000)

  it('gives a block’s unused slots back when its lease ends, and refuses past the limit across two instances', async () => {
    const key = `${prefix}:token:shared`
    const limit = 1_000
    const [a, b] = [new ReservedWindows(), new ReservedWindows()]
    // Instance A is busy for a moment: it reserves blocks (an eighth of the limit at most).
    for (let i = 0; i < 200; i++) expect((await a.consume(redis, lineage, key, limit, 4_000, 125)).allowed).toBe(true)
    // Its lease (a twentieth of the 4 s window) ends; what it did not use goes back.
    await new Promise((resolve) => setTimeout(resolve, 400))
    // Instance B may now have all the rest, and not one more.
    let admittedByB = 0
    for (let i = 0; i < 900; i++) if ((await b.consume(redis, lineage, key, limit, 4_000, 125)).allowed) admittedByB++
    expect(admittedByB).toBe(800)
    const refused = await b.consume(redis, lineage, key, limit, 4_000, 125)
    expect(refused).toMatchObject({ allowed: false, remaining: 0 })
    // Retry-After points at when A's first requests leave the window.
    expect(refused.resetMs).toBeGreaterThan(3_000)
    expect(refused.resetMs).toBeLessThanOrEqual(4_000)
  }, 30_000)
})

// A budget's log lives in two keys (the log, and the sizes beside it). Should only one go (an
// operator's DEL, an eviction under maxmemory, which picks keys one by one), what is left must
// never let the window pass the limit: with the sizes gone the count read 0 and the whole limit
// was handed out again within the same window.
const spend = async (windows: ReservedWindows, key: string, n: number, nowMs: number) =>
  (await Promise.all(Array.from({ length: n }, () => windows.consume(redis, lineage, key, 100, 60_000, 0, nowMs)))).filter((outcome) => outcome.allowed).length

describe('a reserved budget one of whose two keys is lost', () => {
  it('admits no more than the limit within one window when its sizes go but the log stays', async () => {
    const key = `${prefix}:token:sizes-lost`
    const windows = new ReservedWindows()
    const start = Date.now()
    expect(await spend(windows, key, 100, start)).toBe(100)
    expect(await redis.zcard(`${key}:reserved`)).toBeGreaterThan(0)
    await redis.del(`${key}:reserved:slots`)
    // Ten seconds later, well inside the minute: the 100 slots of the log are all still in it.
    expect(await spend(windows, key, 100, start + 10_000)).toBe(0)
  })

  // Once the lost reservations leave the window, forgetting them added -0 to the count, which Redis
  // refuses ('value is not an integer'): every reservation of the key threw until the log expired.
  it('frees the whole limit once the log leaves the window, without an error from Redis', async () => {
    const key = `${prefix}:token:sizes-lost-later`
    const windows = new ReservedWindows()
    const start = Date.now()
    expect(await spend(windows, key, 60, start)).toBe(60)
    await redis.del(`${key}:reserved:slots`)
    // After the window, the lost reservations are gone and the whole limit is free again.
    expect(await spend(windows, key, 100, start + 61_000)).toBe(100)
    expect(await spend(windows, key, 1, start + 61_001)).toBe(0)
  })

  it('admits no more than the limit within one window when the log goes but its sizes stay', async () => {
    const key = `${prefix}:token:log-lost`
    const windows = new ReservedWindows()
    const start = Date.now()
    expect(await spend(windows, key, 100, start)).toBe(100)
    await redis.del(`${key}:reserved`)
    expect(await spend(windows, key, 100, start + 10_000)).toBe(0)
  })
})
