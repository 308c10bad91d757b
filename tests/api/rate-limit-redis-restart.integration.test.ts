import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync, rmSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Redis } from 'ioredis'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { closeRedis } from '../../lib/redis.ts'
import { consumeTokenRequest, resetRateLimitersForTests } from '../../lib/api/rate-limit.ts'

/**
 * break70: Redis restarted keeping its data (SHUTDOWN SAVE, started again on the same file), as an
 * operator restarts it for an upgrade, while a busy token's instance holds a prefetched block. The
 * claim: a restart that keeps data changes nothing; the token's minute is the same 200 before,
 * during (in memory) and after. The block's lease ends while Redis is down, so its unused slots
 * are never given back: they come back with the data, counted and unused, for the window.
 *
 * The Redis is the test's own (a free port, a directory of its own): it is shut down and started again.
 */
async function freePort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}
const port = await freePort()
const url = `redis://127.0.0.1:${port}`
const dir = path.join(tmpdir(), `break70-redis-${randomBytes(4).toString('hex')}`)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const startRedis = () => execFileSync('redis-server', ['--port', String(port), '--dir', dir, '--save', '', '--appendonly', 'no', '--daemonize', 'yes'])

afterAll(async () => {
  await closeRedis()
  resetRateLimitersForTests()
  const admin = new Redis(url)
  await admin.call('SHUTDOWN', 'NOSAVE').catch(() => undefined)
  admin.disconnect()
  rmSync(dir, { recursive: true, force: true })
})

describe('a Redis restart that keeps its data', () => {
  it('changes nothing for a busy token that used part of its minute', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    vi.spyOn(console, 'info').mockImplementation(() => {})
    mkdirSync(dir, { recursive: true })
    startRedis()
    await sleep(300)
    Object.assign(process.env, { REDIS_URL: url, RATE_LIMIT_KEY_PREFIX: `test:break70:restart:${randomBytes(4).toString('hex')}`, RATE_LIMIT_STANDARD_PER_MINUTE: '200' })
    let before = 0
    for (let i = 0; i < 150; i++) if ((await consumeTokenRequest('token-restart', 'standard')).allowed) before++
    expect(before).toBe(150)

    // The operator restarts Redis, keeping its data; requests meanwhile are counted in memory.
    const admin = new Redis(url)
    await admin.call('SHUTDOWN', 'SAVE').catch(() => undefined)
    admin.disconnect()
    let during = 0
    for (let i = 0; i < 20; i++) if ((await consumeTokenRequest('token-restart', 'standard')).allowed) during++
    startRedis()
    await sleep(3_000)

    let after = 0
    for (let i = 0; i < 300; i++) if ((await consumeTokenRequest('token-restart', 'standard')).allowed) after++
    expect(before + during + after, `admitted before / during / after the restart: ${before} / ${during} / ${after}, within one 60 s window (limit 200)`).toBe(200)
  }, 60_000)
})
