import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import { afterAll, expect, it } from 'vitest'
import { testRedisUrl } from '../../tests/support/test-env.ts'
import { consumeInRedis, RedisLineage } from './sliding-window.ts'

// A fresh client (a new instance's first requests): another command opens the tick's
// auto-pipeline before the limiter's script commands are defined on the client.

const key = `test:rl-commands:${randomBytes(6).toString('hex')}`
const redis = new Redis(testRedisUrl, { enableAutoPipelining: true, maxRetriesPerRequest: 1 })

afterAll(async () => {
  await redis.del(key, `${key}:lineage`)
  redis.disconnect()
})

it('decides the first request of a fresh client even when another command went out in the same tick', async () => {
  await redis.ping()
  const [other, outcome] = await Promise.all([redis.get(`${key}:other`), consumeInRedis(redis, new RedisLineage(`${key}:lineage`), key, 5, 60_000)])
  expect(other).toBeNull()
  expect(outcome).toMatchObject({ allowed: true, remaining: 4 })
})
