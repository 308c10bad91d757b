import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bearer as headers, sendJson as send } from '../support/killed-after-commit.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { closedPort, startOwnRedis } from '../support/own-redis.ts'
import { spawnApiServer, type SpawnedApiServer } from '../support/spawn-api-server.ts'

// break81 (helper-81): two instances share PostgreSQL and a Redis. The operator's Redis stalls
// for a moment (SIGSTOP: a paused VM, a long fork). Meanwhile an editor saves a headline through
// the first instance, which already knows Redis stalls: the edit commits and is answered (200),
// its generation advance put off until Redis answers again (lib/redis.ts, not sent while
// stalled). A colleague then opens the article on the second instance, whose cached reads ask
// Redis for the generation: the question waits in Redis's socket behind the stall, which ends
// within the command timeout, so Redis answers it with the generation from before the edit (the
// first instance's advance is only sent after its own PING is answered, a round trip later), and
// the colleague is served the article as it was before the acknowledged edit.

let newsroom: TestTenant
let redis: Awaited<ReturnType<typeof startOwnRedis>>
let redisPid: number
let first: SpawnedApiServer
let second: SpawnedApiServer

beforeAll(async () => {
  redis = await startOwnRedis(await closedPort())
  redisPid = Number(/process_id:(\d+)/.exec(await redis.client.info('server'))![1])
  newsroom = await createTestTenant({ plan: 'enterprise' })
  const env = { REDIS_URL: redis.url, RATE_LIMIT_KEY_PREFIX: `break81-stall-read:${Date.now()}` }
  ;[first, second] = await Promise.all([spawnApiServer(process.env.DATABASE_URL!, { env }), spawnApiServer(process.env.DATABASE_URL!, { env })])
})
afterAll(async () => {
  try {
    process.kill(redisPid, 'SIGCONT')
  } catch {
    // already gone
  }
  await Promise.all([first?.stop(), second?.stop()])
  await redis?.stop()
})

describe('a read started after an edit acknowledged during a Redis stall (break81)', () => {
  it('shows the edit, on the other instance, when the stall ends while the read waits', async () => {
    const token = await newsroom.token(['articles:read', 'articles:write'], 'editor')
    const stale: string[] = []
    for (let round = 1; round <= 3; round++) {
      const created = await send(`${first.url}/v1/articles`, { method: 'POST', headers: headers(token), body: JSON.stringify({ headline: `Before ${round}` }) })
      expect(created.status).toBe(201)
      const path = `/v1/articles/${created.body.article_id}`
      for (let i = 0; i < 3; i++) expect((await send(`${second.url}${path}`, { headers: headers(token) })).body.headline).toBe(`Before ${round}`)

      process.kill(redisPid, 'SIGSTOP')
      let patched: Awaited<ReturnType<typeof send>>
      let read: Awaited<ReturnType<typeof send>>
      try {
        // The first instance learns that Redis stalls (one command timeout), then takes the edit.
        await send(`${first.url}${path}`, { headers: headers(token) })
        patched = await send(`${first.url}${path}`, { method: 'PATCH', headers: headers(token), body: JSON.stringify({ headline: `After ${round}` }) })
        expect(patched.status).toBe(200)
        expect(patched.body.headline).toBe(`After ${round}`)
        // After the acknowledgement, the colleague's read; the stall ends while it waits on Redis.
        const reading = send(`${second.url}${path}`, { headers: headers(token) })
        await new Promise((resolve) => setTimeout(resolve, 100))
        process.kill(redisPid, 'SIGCONT')
        read = await reading
      } finally {
        process.kill(redisPid, 'SIGCONT')
      }
      expect(read.status).toBe(200)
      if (read.body.headline !== `After ${round}`) stale.push(`round ${round}: ${read.body.headline}`)
      await new Promise((resolve) => setTimeout(resolve, 500))
    }
    expect(stale).toEqual([])
  })
})
