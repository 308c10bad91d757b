import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { closedPort, startOwnRedis } from '../support/own-redis.ts'
import { spawnApiServer, type SpawnedApiServer } from '../support/spawn-api-server.ts'

// break80 (helper-80): two instances share PostgreSQL and a Redis. The operator restarts Redis
// (it saves its data on the way down and loads it on the way up, as `appendonly yes` or a saving
// shutdown does); while it is down an editor's PATCH goes through the first instance: the edit
// commits and is acknowledged (200), its generation advance lost with Redis. The first instance
// remembers the lost advance and makes it again once Redis answers (break77), but it is SIGKILLed
// first (an OOM kill, a node lost), and nothing else knows. Redis comes back with its data, still holding the generation from before the edit, and the
// second instance, which had the article cached, serves it as it was before the acknowledged edit
// for the cache's whole 30 s. docs/integrators.md says every committed change advances the
// generation before the writer gets its answer, so that no instance serves an answer another's
// write has outdated; no doc bounds or mentions this case (the 30 s bound of a lost advance is
// documented only for the events' pruning).

const headers = (token: string) => ({ Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' })

async function send(url: string, init: RequestInit = {}): Promise<{ status: number; body: any }> {
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) })
  const text = await response.text()
  return { status: response.status, body: text ? JSON.parse(text) : undefined }
}

const redisDir = mkdtempSync(path.join(os.tmpdir(), 'break80-redis-'))
let redisPort: number
let newsroom: TestTenant
let redis: Awaited<ReturnType<typeof startOwnRedis>>
let first: SpawnedApiServer
let second: SpawnedApiServer

beforeAll(async () => {
  redisPort = await closedPort()
  redis = await startOwnRedis(redisPort, redisDir)
  newsroom = await createTestTenant({ plan: 'enterprise' })
  const env = { REDIS_URL: redis.url, RATE_LIMIT_KEY_PREFIX: `break80-lost-advance:${Date.now()}` }
  ;[first, second] = await Promise.all([spawnApiServer(process.env.DATABASE_URL!, { env }), spawnApiServer(process.env.DATABASE_URL!, { env })])
})
afterAll(async () => {
  await Promise.all([first?.stop(), second?.stop()])
  await redis?.stop()
  rmSync(redisDir, { recursive: true, force: true })
})

describe('an edit acknowledged while Redis restarted, its instance killed before Redis was back (break80)', () => {
  it('is seen on the other instance within 5 s of Redis being back', async () => {
    const token = await newsroom.token(['articles:read', 'articles:write'], 'editor')
    const created = await send(`${first.url}/v1/articles`, { method: 'POST', headers: headers(token), body: JSON.stringify({ headline: 'Before the restart' }) })
    expect(created.status).toBe(201)
    const path = `/v1/articles/${created.body.article_id}`
    for (let i = 0; i < 5; i++) expect((await send(`${second.url}${path}`, { headers: headers(token) })).body.headline).toBe('Before the restart')

    await redis.stop(true)
    const patched = await send(`${first.url}${path}`, { method: 'PATCH', headers: headers(token), body: JSON.stringify({ headline: 'After the restart' }) })
    first.child.kill('SIGKILL')
    await first.exited
    redis = await startOwnRedis(redisPort, redisDir)
    expect(patched.status).toBe(200)
    expect(patched.body.headline).toBe('After the restart')
    const backAt = Date.now()
    const stale: number[] = []
    while (Date.now() - backAt < 10_000) {
      const read = await send(`${second.url}${path}`, { headers: headers(token) })
      if (read.body.headline !== 'After the restart') stale.push(Date.now() - backAt)
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
    // Old answers later than 5 s after Redis was back, in ms: none expected.
    expect(stale.filter((ms) => ms > 5_000)).toEqual([])
  })
})
