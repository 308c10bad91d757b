import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import net from 'node:net'
import { Redis } from 'ioredis'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { closeRedis } from '../../lib/redis.ts'
import { consumeTokenRequest, resetRateLimitersForTests, type RateLimitDecision } from '../../lib/api/rate-limit.ts'

/**
 * break66: a token's rolling minute while Redis is slow for a moment (CLIENT PAUSE: nothing lost,
 * Redis answers again with every count it had). The limit is 200 a minute, with two instances
 * behind the balancer (RATE_LIMIT_INSTANCES=2): one instance alone must never let more than 200
 * through in any 60 s, before, during and after the pause.
 *
 * Redis here is a server of the test's own (redis-server on a free port): CLIENT PAUSE stops every
 * client of the server it is sent to, so the shared test Redis is never paused.
 */
let redisUrl = ''
let redisServer: ChildProcess | undefined
const prefix = `test:break66:${randomBytes(6).toString('hex')}`
const savedEnv = { ...process.env }
let admin: Redis

async function freePort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

beforeAll(async () => {
  const port = await freePort()
  redisServer = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' })
  redisUrl = `redis://127.0.0.1:${port}`
  const probe = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null })
  probe.on('error', () => undefined)
  for (let attempt = 0; ; attempt++) {
    try {
      await probe.connect()
      break
    } catch (error) {
      if (attempt > 50) throw error
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
  probe.disconnect()
  admin = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 })
  await admin.connect()
})

afterEach(async () => {
  await admin.call('CLIENT', 'UNPAUSE').catch(() => undefined)
  await closeRedis()
  resetRateLimitersForTests()
  process.env = { ...savedEnv }
  vi.restoreAllMocks()
})

afterAll(async () => {
  const keys: string[] = []
  for await (const batch of admin.scanStream({ match: `${prefix}:*`, count: 500 })) keys.push(...(batch as string[]))
  if (keys.length > 0) await admin.del(...keys)
  await admin.quit()
  redisServer?.kill('SIGTERM')
})

const admittedOf = (decisions: RateLimitDecision[]) => decisions.filter((decision) => decision.allowed).length

async function spend(tokenId: string, count: number): Promise<RateLimitDecision[]> {
  const decisions: RateLimitDecision[] = []
  for (let i = 0; i < count; i++) decisions.push(await consumeTokenRequest(tokenId, 'standard'))
  return decisions
}

describe('a token at its limit while Redis pauses for a moment', () => {
  it('is not given a second helping of its minute when Redis is slow mid-window', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    Object.assign(process.env, {
      REDIS_URL: redisUrl,
      RATE_LIMIT_KEY_PREFIX: `${prefix}:spent`,
      RATE_LIMIT_STANDARD_PER_MINUTE: '200',
      RATE_LIMIT_INSTANCES: '2',
    })
    // The whole minute spent through Redis: 200 admitted, the next refused.
    const before = await spend('token-spent', 210)
    expect(admittedOf(before)).toBe(200)
    expect(before.at(-1)).toMatchObject({ allowed: false })

    // Redis stalls for 4 s (a slow disk, a long command): the instance answers from memory.
    await admin.call('CLIENT', 'PAUSE', '4000', 'ALL')
    const during = await Promise.all(Array.from({ length: 150 }, () => consumeTokenRequest('token-spent', 'standard')))

    // Still within the same minute, this one instance has let 200 + what it admitted during the pause through.
    expect(admittedOf(before) + admittedOf(during), 'requests admitted for one token within one 60 s window (limit 200)').toBeLessThanOrEqual(200)
  }, 60_000)

  it('does not let the whole limit through again once Redis answers after a pause in which the instance counted alone', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    Object.assign(process.env, {
      REDIS_URL: redisUrl,
      RATE_LIMIT_KEY_PREFIX: `${prefix}:back`,
      RATE_LIMIT_STANDARD_PER_MINUTE: '200',
      RATE_LIMIT_INSTANCES: '2',
    })
    await spend('token-back', 1)
    await admin.call('CLIENT', 'PAUSE', '3000', 'ALL')
    const during = await Promise.all(Array.from({ length: 150 }, () => consumeTokenRequest('token-back', 'standard')))
    // Redis answers again, with everything it had: the instance counts in Redis once more.
    await new Promise((resolve) => setTimeout(resolve, 3_500))
    await expect.poll(async () => (await admin.ping()) === 'PONG').toBe(true)
    const after = await spend('token-back', 250)
    expect(admittedOf(during), 'admitted from memory, at the instance’s share').toBeGreaterThan(0)
    expect(1 + admittedOf(during) + admittedOf(after), 'requests admitted for one token within one 60 s window (limit 200)').toBeLessThanOrEqual(200)
  }, 60_000)

  it('gives a token back the rest of its minute once Redis answers again, rather than counting reservations nobody used', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    Object.assign(process.env, {
      REDIS_URL: redisUrl,
      RATE_LIMIT_KEY_PREFIX: `${prefix}:phantom`,
      RATE_LIMIT_STANDARD_PER_MINUTE: '200',
      RATE_LIMIT_INSTANCES: '2',
    })
    const before = await spend('token-phantom', 10)
    // A busy integration (about 100 requests a second) while Redis stalls for 3 s.
    await admin.call('CLIENT', 'PAUSE', '3000', 'ALL')
    const during: RateLimitDecision[] = []
    const until = Date.now() + 2_800
    while (Date.now() < until) {
      during.push(...(await Promise.all(Array.from({ length: 5 }, () => consumeTokenRequest('token-phantom', 'standard')))))
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    // Redis is back: the token goes on until it is refused.
    const after = await spend('token-phantom', 300)
    const used = admittedOf(before) + admittedOf(during) + admittedOf(after)
    // The reservations sent while Redis stalled ran once it answered, after their senders had given
    // up on them: their slots (a whole prefetched block each) stay counted for the window, unused.
    expect(used, `admitted before / during / after the stall: ${admittedOf(before)} / ${admittedOf(during)} / ${admittedOf(after)}; then refused as having made more than 200`).toBeGreaterThanOrEqual(180)
  }, 60_000)
})
