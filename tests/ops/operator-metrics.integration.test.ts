import { createServer, type Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sendContentPurges } from '../../lib/content/purge-hook.ts'
import { renderMetrics } from '../../lib/ops/metrics.ts'
import { closeRedis } from '../../lib/redis.ts'
import { testRedisUrl } from '../support/test-env.ts'

// The series the alert rules (deploy/prometheus/newsroom-alerts.yml) read, as /metrics renders
// them: purge failures, Redis's connection, the replica's state and lag.

let cache: Server
let port: number

beforeAll(async () => {
  // A shared cache that refuses every purge.
  cache = createServer((_request, response) => response.writeHead(503).end('down for maintenance'))
  await new Promise<void>((resolve) => cache.listen(0, '127.0.0.1', resolve))
  port = (cache.address() as { port: number }).port
})

afterAll(async () => {
  delete process.env.REDIS_URL
  delete process.env.DATABASE_REPLICA_URL
  delete process.env.CONTENT_PURGE_URL
  await closeRedis()
  await new Promise((resolve) => cache.close(resolve))
})

/** The value of the one sample of `series` (whatever its labels), or undefined when it has none. */
const value = (body: string, series: string) => {
  const line = body.split('\n').find((text) => text.startsWith(`${series} `) || text.startsWith(`${series}{`))
  return line === undefined ? undefined : Number(line.split(' ').pop())
}

describe('the operator metrics', () => {
  it('count purges the shared cache refused', async () => {
    process.env.CONTENT_PURGE_URL = `http://127.0.0.1:${port}/`
    const before = value((await renderMetrics()).body, 'newsroom_content_purge_failures_total') ?? 0
    await expect(sendContentPurges([{ id: 'evt_1', data: { keys: ['article-1'] } }])).rejects.toThrow('the purge hook answered 503')
    await expect(sendContentPurges([{ id: 'evt_2', data: { keys: ['article-2'] } }])).rejects.toThrow()
    expect(value((await renderMetrics()).body, 'newsroom_content_purge_failures_total')).toBe(before + 2)
  })

  it("say whether this instance's Redis is there", async () => {
    expect(value((await renderMetrics()).body, 'newsroom_redis_up')).toBeUndefined()
    process.env.REDIS_URL = testRedisUrl
    const { getRedis, whenSettled } = await import('../../lib/redis.ts')
    await whenSettled(getRedis()!, 5_000)
    expect(value((await renderMetrics()).body, 'newsroom_redis_up')).toBe(1)
    expect((await renderMetrics()).body).toContain(`newsroom_redis_up{server="${new URL(testRedisUrl).host}"} 1`)
    // A Redis that is not there (nothing listens on port 1).
    process.env.REDIS_URL = 'redis://127.0.0.1:1'
    await whenSettled(getRedis()!, 1_000)
    expect(value((await renderMetrics()).body, 'newsroom_redis_up')).toBe(0)
  })

  it("show the replica's state when scraped: a server that is no replica is not up", async () => {
    expect(value((await renderMetrics()).body, 'newsroom_replica_up')).toBeUndefined()
    // This file's database is a primary: it has no replay position.
    process.env.DATABASE_REPLICA_URL = process.env.DATABASE_URL
    const body = (await renderMetrics()).body
    expect(value(body, 'newsroom_replica_up')).toBe(0)
    // Not a replica, so no lag is claimed for it.
    expect(value(body, 'newsroom_replica_lag_seconds')).toBeUndefined()
    expect(body).toContain('# TYPE newsroom_replica_lag_seconds gauge')
  })
})
