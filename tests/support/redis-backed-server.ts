import { Redis } from 'ioredis'
import { afterAll, beforeAll } from 'vitest'
import { articleGenerationKey } from '../../lib/articles/article-totals.ts'
import { closeRedis } from '../../lib/redis.ts'
import { startApiServer } from './api-server.ts'
import { createTestTenant, type TestTenant } from './fixtures.ts'
import { stubEnv } from './stub-env.ts'
import { testRedisUrl } from './test-env.ts'

/**
 * The /v1 server on the test Redis, a newsroom, and a second Redis connection standing for Redis
 * itself (or another instance) in tests that make Redis lose or keep a newsroom's generation.
 * Registers its own beforeAll/afterAll; read the fields inside tests.
 */
export function redisBackedServer() {
  const fixture = {} as { server: Awaited<ReturnType<typeof startApiServer>>; newsroom: TestTenant; elsewhere: Redis; generationKey: () => string }
  beforeAll(async () => {
    stubEnv({ REDIS_URL: testRedisUrl })
    fixture.server = await startApiServer()
    fixture.newsroom = await createTestTenant()
    fixture.elsewhere = new Redis(testRedisUrl)
    fixture.generationKey = () => articleGenerationKey(fixture.newsroom.tenant.id)
  })
  afterAll(async () => {
    await fixture.elsewhere.del(fixture.generationKey())
    fixture.elsewhere.disconnect()
    await fixture.server.close()
    await closeRedis()
  })
  return fixture
}
