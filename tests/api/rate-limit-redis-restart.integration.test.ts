import { randomBytes } from 'node:crypto'
import { mkdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { closeRedis } from '../../lib/redis.ts'
import { consumeTokenRequest, resetRateLimitersForTests } from '../../lib/api/rate-limit.ts'
import { closedPort, startOwnRedis } from '../support/own-redis.ts'

/**
 * break70: Redis restarted keeping its data (SHUTDOWN SAVE, started again on the same file), as an
 * operator restarts it for an upgrade, while a busy token's instance holds a prefetched block. The
 * claim: a restart that keeps data changes nothing; the token's minute is the same 200 before,
 * during (in memory) and after. The block's lease ended while Redis was down, so its unused slots
 * were never given back: they came back with the data, counted and unused, for the window.
 *
 * The Redis is the test's own (a free port, a directory of its own): it is shut down and started again.
 */
const dir = path.join(tmpdir(), `rate-limit-restart-${randomBytes(4).toString('hex')}`)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
let ownRedis: Awaited<ReturnType<typeof startOwnRedis>> | undefined

afterAll(async () => {
  await closeRedis()
  resetRateLimitersForTests()
  await ownRedis?.stop()
  rmSync(dir, { recursive: true, force: true })
})

describe('a Redis restart that keeps its data', () => {
  it('changes nothing for a busy token that used part of its minute', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    vi.spyOn(console, 'info').mockImplementation(() => {})
    mkdirSync(dir, { recursive: true })
    const port = await closedPort()
    ownRedis = await startOwnRedis(port, dir)
    Object.assign(process.env, { REDIS_URL: ownRedis.url, RATE_LIMIT_KEY_PREFIX: `test:break70:restart:${randomBytes(4).toString('hex')}`, RATE_LIMIT_STANDARD_PER_MINUTE: '200' })
    let before = 0
    for (let i = 0; i < 150; i++) if ((await consumeTokenRequest('token-restart', 'standard')).allowed) before++
    expect(before).toBe(150)

    // The operator restarts Redis, keeping its data; requests meanwhile are counted in memory.
    await ownRedis.stop(true)
    let during = 0
    for (let i = 0; i < 20; i++) if ((await consumeTokenRequest('token-restart', 'standard')).allowed) during++
    // Down for longer than a block's lease (1 s at a 60 s window): the block's unused slots are given back while Redis is away.
    await sleep(1_500)
    ownRedis = await startOwnRedis(port, dir)
    await sleep(3_000)

    let after = 0
    for (let i = 0; i < 300; i++) if ((await consumeTokenRequest('token-restart', 'standard')).allowed) after++
    expect(before + during + after, `admitted before / during / after the restart: ${before} / ${during} / ${after}, within one 60 s window (limit 200)`).toBe(200)
  }, 60_000)
})
