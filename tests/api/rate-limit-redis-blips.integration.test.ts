import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { closeRedis } from '../../lib/redis.ts'
import { closedPort, startOwnRedis } from '../support/own-redis.ts'
import { consumeSignInAttempt, consumeTokenRequest, resetRateLimitersForTests, type RateLimitDecision } from '../../lib/api/rate-limit.ts'

/**
 * A token's rolling minute (break66) while Redis is slow for a moment (CLIENT PAUSE: nothing lost,
 * Redis answers again with every count it had). The limit is 200 a minute, with two instances
 * behind the balancer (RATE_LIMIT_INSTANCES=2): one instance alone must never let more than 200
 * through in any 60 s, before, during and after the pause.
 *
 * Redis here is a server of the test's own (redis-server on a free port): CLIENT PAUSE stops every
 * client of the server it is sent to, so the shared test Redis is never paused.
 */
let redisUrl = ''
let ownRedis: Awaited<ReturnType<typeof startOwnRedis>> | undefined
const prefix = `test:break66:${randomBytes(6).toString('hex')}`
const savedEnv = { ...process.env }
let admin: Redis

beforeAll(async () => {
  ownRedis = await startOwnRedis(await closedPort())
  redisUrl = ownRedis.url
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
  // The server is the test's own: stopped, it keeps nothing.
  await admin.quit()
  await ownRedis?.stop()
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

// break70: attempts that do not count (given back: a refusal, a right password) while Redis is
// paused. Decided in memory, each was also noted as owed to Redis, and the give-back took it out
// of memory only: once Redis answered, the owed count was declared there anyway, and the
// account's log filled with failures nobody made.
describe('sign-in attempts given back while Redis is paused', () => {
  it('does not lock a member whose account nobody failed for, after refused attempts during a blip', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    Object.assign(process.env, { REDIS_URL: redisUrl, RATE_LIMIT_KEY_PREFIX: `${prefix}:refused`, RATE_LIMIT_SIGN_IN_PER_ACCOUNT: '10', RATE_LIMIT_SIGN_IN_PER_ADDRESS: '50' })
    const attacker = '198.51.100.7'
    // The attacker's address has spent its budget on other accounts (real, failed attempts).
    for (let i = 0; i < 50; i++) expect((await consumeSignInAttempt(`other-${i}@example.com`, attacker)).allowed).toBe(true)
    expect((await consumeSignInAttempt('victim@example.com', attacker)).addressExhausted).toBe(true)
    // Redis stalls for 3 s; the attacker keeps sending the victim's address, refused every time (no password is checked).
    await admin.call('CLIENT', 'PAUSE', '3000', 'ALL')
    const during = []
    for (let round = 0; round < 3; round++) during.push(...(await Promise.all(Array.from({ length: 8 }, () => consumeSignInAttempt('victim@example.com', attacker)))))
    expect(during.every((attempt) => !attempt.allowed && attempt.addressExhausted)).toBe(true)
    await sleep(3_500)
    await expect.poll(async () => (await admin.ping()) === 'PONG').toBe(true)
    // The member, from their own desk, with no failure anywhere for the account.
    const member = await consumeSignInAttempt('victim@example.com', '203.0.113.9')
    expect({ allowed: member.allowed, accountLocked: member.accountLocked, lockEndsInSeconds: member.lockEndsInSeconds }).toEqual({ allowed: true, accountLocked: false, lockEndsInSeconds: 0 })
  }, 60_000)

  it('does not count a member’s right passwords during a blip as failures once Redis answers', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    Object.assign(process.env, { REDIS_URL: redisUrl, RATE_LIMIT_KEY_PREFIX: `${prefix}:succeeded`, RATE_LIMIT_SIGN_IN_PER_ACCOUNT: '10', RATE_LIMIT_SIGN_IN_PER_ADDRESS: '50' })
    const desk = '203.0.113.20'
    await consumeSignInAttempt('busy@example.com', desk).then((attempt) => attempt.succeeded())
    await admin.call('CLIENT', 'PAUSE', '3000', 'ALL')
    // Sign-ins during the pause (several devices, a script re-authenticating), all with the right password.
    for (let i = 0; i < 12; i++) {
      const attempt = await consumeSignInAttempt('busy@example.com', desk)
      expect(attempt.allowed).toBe(true)
      await attempt.succeeded()
    }
    await sleep(3_500)
    await expect.poll(async () => (await admin.ping()) === 'PONG').toBe(true)
    // One typo afterwards: the first failure counted.
    const typo = await consumeSignInAttempt('busy@example.com', desk)
    expect({ allowed: typo.allowed, accountLocked: typo.accountLocked, failuresFromHere: typo.failuresFromHere }).toEqual({ allowed: true, accountLocked: false, failuresFromHere: 0 })
  }, 60_000)
})

// break70: what an instance admitted alone was declared to Redis whole on its return, however
// long ago: after an outage of several windows a busy token was refused outright (0 of 200).
describe('a token after Redis was away for several windows', () => {
  it('is refused on Redis’s return only for what it was admitted in the last window', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    // 200 per 4 s, two instances behind the balancer: 100 per 4 s each while Redis is away.
    Object.assign(process.env, { REDIS_URL: redisUrl, RATE_LIMIT_KEY_PREFIX: `${prefix}:long`, RATE_LIMIT_STANDARD_PER_MINUTE: '200', RATE_LIMIT_WINDOW_SECONDS: '4', RATE_LIMIT_INSTANCES: '2' })
    expect((await consumeTokenRequest('token-long', 'standard')).allowed).toBe(true)
    // Redis answers nothing for 10 s (two and a half windows); the integration goes on at about 40 a second.
    await admin.call('CLIENT', 'PAUSE', '10000', 'ALL')
    const admittedAt: number[] = []
    const until = Date.now() + 10_000
    while (Date.now() < until) {
      if ((await consumeTokenRequest('token-long', 'standard')).allowed) admittedAt.push(Date.now())
      await sleep(25)
    }
    await expect.poll(async () => (await admin.ping()) === 'PONG').toBe(true)
    const back = Date.now()
    const inLastWindow = admittedAt.filter((at) => at > back - 4_000).length
    const after = await spend('token-long', 200)
    expect(admittedOf(after), `admitted at once on Redis's return (limit 200 per 4 s; admitted alone: ${admittedAt.length}, ${inLastWindow} of them in the last 4 s)`).toBeGreaterThanOrEqual(200 - inLastWindow - 10)
  }, 60_000)
})
