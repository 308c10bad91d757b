import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiClient } from '../support/api-client.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { startOwnRedis } from '../support/own-redis.ts'
import { spawnApiServer, type SpawnedApiServer } from '../support/spawn-api-server.ts'

// break77 (helper-77): two instances share a Redis that refuses writes for a moment (maxmemory
// reached under the default noeviction policy: "OOM command not allowed") but stays connected. A
// PATCH through the first instance commits and is acknowledged while its generation advance is
// refused; the second instance, which had the article cached, serves it as it was, as the docs
// allow while an advance is lost (docs/integrators.md: up to 30 s). But once Redis took writes
// again, the first instance made the lost advance only when it reconnected or was itself asked
// for that newsroom: the second served the old article for 29.8 s though Redis was back within
// milliseconds. A lost advance is now retried every second while Redis stays connected.

let newsroom: TestTenant
let redis: Awaited<ReturnType<typeof startOwnRedis>>
let first: SpawnedApiServer
let second: SpawnedApiServer

beforeAll(async () => {
  redis = await startOwnRedis(5788)
  newsroom = await createTestTenant({ plan: 'enterprise' })
  const env = { REDIS_URL: redis.url, RATE_LIMIT_KEY_PREFIX: `break77-full:${Date.now()}` }
  ;[first, second] = await Promise.all([spawnApiServer(process.env.DATABASE_URL!, { env }), spawnApiServer(process.env.DATABASE_URL!, { env })])
})
afterAll(async () => {
  await Promise.all([first?.stop(), second?.stop()])
  await redis?.stop()
})

describe('an acknowledged PATCH while Redis refuses writes (break77)', () => {
  it('is seen on another instance within 5 s once Redis takes writes again, though the writer is asked nothing more', async () => {
    const token = await newsroom.token(['articles:read', 'articles:write'], 'editor')
    const viaFirst = apiClient(first.url, token)
    const viaSecond = apiClient(second.url, token)
    const created = await viaFirst.post('/v1/articles', { headline: 'Before the blip' })
    expect(created.status, created.text).toBe(201)
    const path = `/v1/articles/${created.body.article_id}`
    for (let i = 0; i < 5; i++) expect((await viaSecond.get(path)).body.headline).toBe('Before the blip')

    await redis.client.config('SET', 'maxmemory', '1')
    let patched
    try {
      patched = await viaFirst.patch(path, { headline: 'After the blip' })
    } finally {
      await redis.client.config('SET', 'maxmemory', '0')
    }
    expect(patched.status, patched.text).toBe(200)
    const acknowledgedAt = Date.now()
    const stale: number[] = []
    while (Date.now() - acknowledgedAt < 7_000) {
      const read = await viaSecond.get(path)
      if (read.body.headline !== 'After the blip') stale.push(Date.now() - acknowledgedAt)
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
    // Old answers after the first 5 s, in ms after the acknowledgement: none expected.
    expect(stale.filter((ms) => ms > 5_000)).toEqual([])
  })
})
