import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testRedisUrl } from '../tests/support/test-env.ts'
import { generationCounter } from './generation-counter.ts'
import { closeRedis } from './redis.ts'

// break52: a Redis that restarts without its data (no persistence, a failover to a replica that
// had not received the last INCRs, an eviction) loses the counters. Counted again from 0, a
// newsroom's generation passes through values it already had, and an instance's memory still
// holds answers kept under them (response-cache.ts, for 30 s): after an acknowledged write, a
// read on another instance was answered with the article as it was before the write.
let elsewhere: Redis
const counter = generationCounter('article', () => undefined)
const tenantId = `ten_break52_lost_${process.pid}_${Date.now()}`

beforeAll(async () => {
  process.env.REDIS_URL = testRedisUrl
  elsewhere = new Redis(testRedisUrl)
})

afterAll(async () => {
  await elsewhere.del(counter.keyOf(tenantId))
  elsewhere.disconnect()
  await closeRedis()
  delete process.env.REDIS_URL
})

describe('a generation after Redis lost the counter', () => {
  it('is never one the newsroom had before the loss', async () => {
    const seen = new Set<string>()
    seen.add((await counter.current(tenantId))!)
    for (let i = 0; i < 3; i++) {
      await counter.advance([tenantId])
      seen.add((await counter.current(tenantId))!)
    }
    // Redis restarts empty (only this newsroom's key is dropped here: the server is shared).
    await elsewhere.del(counter.keyOf(tenantId))
    for (let i = 0; i < 3; i++) {
      await counter.advance([tenantId])
      const generation = (await counter.current(tenantId))!
      expect(seen.has(generation), `generation ${generation} was already used before the loss`).toBe(false)
      seen.add(generation)
    }
  })

  it('is never one the newsroom had before a failover to a replica that missed the last advances', async () => {
    const values: string[] = []
    for (let i = 0; i < 4; i++) {
      await counter.advance([tenantId])
      values.push((await elsewhere.get(counter.keyOf(tenantId)))!)
    }
    const seen = new Set(values.map((value) => `redis:${value}`))
    // Redis Sentinel promotes the replica (docs/deploy.md): replication is asynchronous, and it
    // had the counter as it was two advances ago.
    await elsewhere.set(counter.keyOf(tenantId), values[1]!)
    for (let i = 0; i < 3; i++) {
      await counter.advance([tenantId])
      const generation = (await counter.current(tenantId))!
      expect(seen.has(generation), `generation ${generation} was already used before the failover`).toBe(false)
      seen.add(generation)
    }
  })
})
