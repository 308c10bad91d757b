import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { testRedisUrl } from '../tests/support/test-env.ts'
import { generationCounter } from './generation-counter.ts'
import { closeRedis, getRedis } from './redis.ts'

// Another instance's connection: its INCR is a change committed elsewhere.
let elsewhere: Redis
const counter = generationCounter('article', () => undefined)
const tenantId = `ten_generation_${process.pid}_${Date.now()}`

beforeAll(async () => {
  process.env.REDIS_URL = testRedisUrl
  elsewhere = new Redis(testRedisUrl)
  // A counter that exists (an absent one is started from Redis's clock on its first read).
  await elsewhere.set(counter.keyOf(tenantId), '0')
})

afterAll(async () => {
  await elsewhere.del(counter.keyOf(tenantId))
  elsewhere.disconnect()
  await closeRedis()
  delete process.env.REDIS_URL
})

const getsSent = () => {
  const sendCommand = vi.spyOn(getRedis()!, 'sendCommand')
  return { count: () => sendCommand.mock.calls.filter(([command]) => command.name === 'get').length, restore: () => sendCommand.mockRestore() }
}

describe('the change generation read from Redis', () => {
  it('is never answered by a read sent before the request asked: a change made elsewhere meanwhile is seen', async () => {
    expect(await counter.current(tenantId)).toBe('redis:0')
    // The first GET's answer is held back, as on a slow network: it stays in flight while
    // another instance commits a change (its INCR is answered), and only then does the next
    // request arrive.
    const redis = getRedis()!
    const send = redis.sendCommand.bind(redis)
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    const held = vi.spyOn(redis, 'sendCommand').mockImplementationOnce(((command: Parameters<typeof send>[0]) => (send(command) as Promise<unknown>).then(async (value) => (await released, value))) as never)
    try {
      const first = counter.current(tenantId)
      await vi.waitFor(() => expect(held).toHaveBeenCalledTimes(1))
      const advanced = await elsewhere.incr(counter.keyOf(tenantId))
      const second = counter.current(tenantId)
      release()
      expect(await first).toBe('redis:0')
      expect(await second).toBe(`redis:${advanced}`)
    } finally {
      held.mockRestore()
    }
  })

  it('shares one GET among the requests of a turn, and one among those that ask while it is in flight', async () => {
    const gets = getsSent()
    try {
      const turn = await Promise.all(Array.from({ length: 50 }, () => counter.current(tenantId)))
      expect(new Set(turn).size).toBe(1)
      expect(gets.count()).toBe(1)
      // 200 requests, one per turn: without sharing, 200 GETs.
      const asked: Promise<string | null>[] = []
      for (let i = 0; i < 200; i++) {
        asked.push(counter.current(tenantId))
        await new Promise((resolve) => setImmediate(resolve))
      }
      await Promise.all(asked)
      expect(gets.count()).toBeLessThan(200)
    } finally {
      gets.restore()
    }
  })

  it('answers null, so nothing is cached, when Redis does not answer', async () => {
    const gets = vi.spyOn(getRedis()!, 'sendCommand').mockRejectedValueOnce(new Error('Command timed out'))
    try {
      expect(await counter.current(tenantId)).toBeNull()
      expect(await counter.current(tenantId)).toMatch(/^redis:\d+$/)
    } finally {
      gets.mockRestore()
    }
  })
})
