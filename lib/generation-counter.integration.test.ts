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

  it('shares one GET among the requests of a turn', async () => {
    const gets = getsSent()
    try {
      const turn = await Promise.all(Array.from({ length: 50 }, () => counter.current(tenantId)))
      expect(new Set(turn).size).toBe(1)
      expect(gets.count()).toBe(1)
    } finally {
      gets.restore()
    }
  })

  it('makes the requests that ask while a GET is in flight, over several turns, share the next one', async () => {
    // Each GET's answer is held until the test lets it through, after five more turns: held by
    // the test, not left to how fast Redis answers, where a Redis that answered within a turn
    // gave every request a GET of its own, as it should (CI counted 200 of 200).
    const redis = getRedis()!
    const send = redis.sendCommand.bind(redis)
    const held: (() => void)[] = []
    let holding = true
    const sent = vi.spyOn(redis, 'sendCommand').mockImplementation(((command: Parameters<typeof send>[0]) => {
      const answer = send(command) as Promise<unknown>
      if (command.name !== 'get' || !holding) return answer
      return answer.then((value) => new Promise((resolve) => held.push(() => resolve(value))))
    }) as never)
    try {
      const asked: Promise<string | null>[] = []
      for (let turn = 0; turn < 200; turn++) {
        asked.push(counter.current(tenantId))
        await new Promise((resolve) => setImmediate(resolve))
        if (turn % 5 === 4) {
          // Let the answers arrive before they are let through.
          await vi.waitFor(() => expect(held.length).toBeGreaterThan(0), { interval: 1 })
          for (const release of held.splice(0)) release()
        }
      }
      holding = false
      for (const release of held.splice(0)) release()
      const answers = await Promise.all(asked)
      expect(answers.every((answer) => answer !== null && /^redis:\d+$/.test(answer))).toBe(true)
      const getsSent = sent.mock.calls.filter(([command]) => command.name === 'get').length
      // One GET a window of five turns (and one for the last asks): 200 without sharing.
      expect(getsSent).toBeGreaterThan(0)
      expect(getsSent).toBeLessThanOrEqual(200 / 5 + 1)
    } finally {
      sent.mockRestore()
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
