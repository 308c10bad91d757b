import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testRedisUrl } from '../../tests/support/test-env.ts'
import { ReservedWindows } from './reserved-window.ts'

// A budget's log lives in two keys since reservations became one member each (the log, and the
// sizes beside it). Should only the sizes go (an operator's DEL, an eviction under maxmemory,
// which picks keys one by one), the log still holds every reservation of the window, yet the
// count read from the sizes is 0: the whole limit was handed out again within the same window.
const prefix = `test:b65rw:${randomBytes(6).toString('hex')}`
let redis: Redis

beforeAll(async () => {
  redis = new Redis(testRedisUrl, { maxRetriesPerRequest: 1 })
  await redis.ping()
})

afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`)
  if (keys.length > 0) await redis.del(...keys)
  redis.disconnect()
})

const spend = async (windows: ReservedWindows, key: string, n: number, nowMs: number) =>
  (await Promise.all(Array.from({ length: n }, () => windows.consume(redis, key, 100, 60_000, 0, nowMs)))).filter((outcome) => outcome.allowed).length

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
