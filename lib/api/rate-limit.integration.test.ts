import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import net from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { Redis } from 'ioredis'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { closedPort, startOwnRedis, waitUntil } from '../../tests/support/own-redis.ts'
import { testRedisUrl } from '../../tests/support/test-env.ts'
import { closeRedis, getRedis } from '../redis.ts'
import { consumeTokenRequest, rateLimitHeaders, resetRateLimitersForTests, type RateLimitDecision } from './rate-limit.ts'

const repoRoot = path.resolve(import.meta.dirname, '../..')
const workerScript = path.join(repoRoot, 'tests/support/rate-limit-worker.ts')
const instanceScript = path.join(repoRoot, 'tests/support/rate-limit-instance.ts')
// Every key this file writes starts with this, so the clean-up cannot touch anyone else's.
const prefix = `test:rl:${randomBytes(6).toString('hex')}`
const savedEnv = { ...process.env }
let admin: Redis

beforeAll(async () => {
  admin = new Redis(testRedisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 })
  await admin.connect()
})

afterEach(async () => {
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
})

type WorkerResult = { results: { decision: RateLimitDecision; headers: Record<string, string> }[] }

/** Starts one worker process; `ready` resolves once it is connected and waiting for `go`. */
function startWorker(env: Record<string, string>, tokenId: string, count: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', workerScript, tokenId, String(count)], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  const killTimer = setTimeout(() => child.kill('SIGKILL'), 25_000)
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const lines = createInterface({ input: child.stdout })
  const output: string[] = []
  let onLine: (() => void) | undefined
  lines.on('line', (line) => {
    output.push(line)
    onLine?.()
  })
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const failIfExited = exited.then((code) => {
    throw new Error(`worker exited (${code}) early: ${stderr}`)
  })
  const waitForLine = (index: number) =>
    Promise.race([
      new Promise<string>((resolve) => {
        const check = () => {
          if (output[index] !== undefined) resolve(output[index])
        }
        onLine = check
        check()
      }),
      failIfExited,
    ])
  return {
    ready: waitForLine(0).then((line) => expect(line).toBe('ready')),
    go: () => child.stdin.write('go\n'),
    result: async (): Promise<WorkerResult> => {
      const line = await waitForLine(1)
      expect(await exited).toBe(0)
      clearTimeout(killTimer)
      return JSON.parse(line) as WorkerResult
    },
  }
}

describe('rate limits shared through Redis', () => {
  it('holds one count across two processes spending the same token at once', async () => {
    const env = {
      REDIS_URL: testRedisUrl,
      RATE_LIMIT_KEY_PREFIX: `${prefix}:shared`,
      RATE_LIMIT_STANDARD_PER_MINUTE: '10',
      RATE_LIMIT_WINDOW_SECONDS: '60',
    }
    const workers = [startWorker(env, 'token-a', 15), startWorker(env, 'token-a', 15)]
    await Promise.all(workers.map((worker) => worker.ready))
    for (const worker of workers) worker.go()
    const [first, second] = await Promise.all(workers.map((worker) => worker.result()))
    const results = [...first!.results, ...second!.results]
    // Separate budgets would have let 10 through in each process.
    expect(results).toHaveLength(30)

    const allowed = results.filter((result) => result.decision.allowed)
    const denied = results.filter((result) => !result.decision.allowed)
    expect(allowed).toHaveLength(10)
    expect(denied).toHaveLength(20)
    // Each allowed request saw its own step of the shared count: 9 left, 8 left, ... 0 left.
    expect(allowed.map((result) => result.decision.remaining).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])

    // One log entry per admitted request, in one sorted set that expires with the window.
    expect(await admin.zcard(`${prefix}:shared:token:token-a`)).toBe(10)
    const ttlSeconds = (await admin.pttl(`${prefix}:shared:token:token-a`)) / 1000
    expect(ttlSeconds).toBeGreaterThan(50)
    expect(ttlSeconds).toBeLessThanOrEqual(60)
    for (const { decision, headers } of denied) {
      expect(decision.remaining).toBe(0)
      expect(decision.retryAfterSeconds).toBeGreaterThanOrEqual(50)
      expect(decision.retryAfterSeconds).toBeLessThanOrEqual(60)
      expect(headers['Retry-After']).toBe(String(decision.retryAfterSeconds))
      expect(headers.RateLimit).toBe(`"per-token";r=0;t=${decision.resetSeconds}`)
    }
  })

  it('opens a new window when the old one expires, with Retry-After telling when', async () => {
    Object.assign(process.env, {
      REDIS_URL: testRedisUrl,
      RATE_LIMIT_KEY_PREFIX: `${prefix}:expiry`,
      RATE_LIMIT_STANDARD_PER_MINUTE: '3',
      RATE_LIMIT_WINDOW_SECONDS: '2',
    })
    for (const remaining of [2, 1, 0]) {
      expect(await consumeTokenRequest('token-b', 'standard')).toMatchObject({ allowed: true, remaining })
    }
    // Counted in Redis from the very first request, made while the client was still connecting.
    expect(await admin.zcard(`${prefix}:expiry:token:token-b`)).toBe(3)
    const denied = await consumeTokenRequest('token-b', 'standard')
    expect(denied).toMatchObject({ allowed: false, remaining: 0 })
    expect(denied.retryAfterSeconds).toBeGreaterThanOrEqual(1)
    expect(denied.retryAfterSeconds).toBeLessThanOrEqual(2)
    expect(rateLimitHeaders(denied)['RateLimit-Policy']).toBe('"per-token";q=3;w=2')

    await new Promise((resolve) => setTimeout(resolve, denied.retryAfterSeconds * 1000 + 100))
    expect(await consumeTokenRequest('token-b', 'standard')).toMatchObject({ allowed: true, remaining: 2 })
  })

  it('keeps the count when the tenant changes plan within a window', async () => {
    Object.assign(process.env, {
      REDIS_URL: testRedisUrl,
      RATE_LIMIT_KEY_PREFIX: `${prefix}:plans`,
      RATE_LIMIT_STANDARD_PER_MINUTE: '3',
      RATE_LIMIT_ENTERPRISE_PER_MINUTE: '5',
    })
    for (let i = 0; i < 3; i++) await consumeTokenRequest('token-c', 'standard')
    expect(await consumeTokenRequest('token-c', 'standard')).toMatchObject({ allowed: false })
    // Refused requests are not counted: 3 of the enterprise 5 are spent.
    expect(await consumeTokenRequest('token-c', 'enterprise')).toMatchObject({ allowed: true, limit: 5, remaining: 1 })
  })
})

type Phase = { allowed: number; remaining: number[]; retryAfter: number[] }

/** An app instance's limiter in its own process, spending requests at times the test chooses. */
async function startInstance(env: Record<string, string>, tokenId: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', instanceScript, tokenId], { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] })
  const killTimer = setTimeout(() => child.kill('SIGKILL'), 60_000)
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
  const nextLine = async () => {
    const { value, done } = await lines.next()
    if (done) throw new Error(`instance exited early: ${stderr}`)
    return value as string
  }
  expect(await nextLine()).toBe('ready')
  return {
    spend: async (count: number, nowMs: number): Promise<Phase> => {
      child.stdin.write(`${count} ${nowMs}\n`)
      return JSON.parse(await nextLine()) as Phase
    },
    stop: () => {
      clearTimeout(killTimer)
      child.stdin.end()
    },
  }
}

describe('a rolling minute across two instances', () => {
  it('admits 1,000 per token per minute in total, and no 60-second span ever more than 1,000', async () => {
    const env = { REDIS_URL: testRedisUrl, REDIS_COMMAND_TIMEOUT_MS: '10000', RATE_LIMIT_KEY_PREFIX: `${prefix}:rolling`, RATE_LIMIT_STANDARD_PER_MINUTE: '1000', RATE_LIMIT_WINDOW_SECONDS: '60' }
    const instances = [await startInstance(env, 'token-r'), await startInstance(env, 'token-r')]
    const t0 = 1_900_000_000_000
    const admitted: number[] = []
    /** Both instances spend `each` at the same moment; answers how many got through in total. */
    const burst = async (at: number, each: number) => {
      const phases = await Promise.all(instances.map((instance) => instance.spend(each, at)))
      const total = phases.reduce((sum, phase) => sum + phase.allowed, 0)
      for (let i = 0; i < total; i++) admitted.push(at)
      return { total, phases }
    }
    try {
      expect((await burst(t0, 300)).total).toBe(600)
      const full = await burst(t0 + 30_000, 400)
      expect(full.total).toBe(400)
      // Remaining counted down across both instances: 399 … 0, each once.
      expect(full.phases.flatMap((phase) => phase.remaining).sort((a, b) => a - b)).toEqual(Array.from({ length: 400 }, (_, i) => i))
      // One millisecond before the first burst leaves the window: nothing, and Retry-After says 1 s.
      const refused = await burst(t0 + 59_999, 100)
      expect(refused.total).toBe(0)
      expect(new Set(refused.phases.flatMap((phase) => phase.retryAfter))).toEqual(new Set([1]))
      // The first burst's 600 leave the window, the second's 400 have not: 600 come back, not 1,000
      // (a fixed window opened at t0 would start again from zero here and let 1,000 through).
      expect((await burst(t0 + 60_000, 500)).total).toBe(600)
      expect((await burst(t0 + 89_999, 100)).total).toBe(0)
      expect((await burst(t0 + 90_000, 300)).total).toBe(400)
    } finally {
      instances.forEach((instance) => instance.stop())
    }
    // Every 60-second span [s, s + 60 s): at most 1,000 admitted.
    admitted.sort((a, b) => a - b)
    let widest = 0
    for (let start = 0, end = 0; start < admitted.length; start++) {
      while (end < admitted.length && admitted[end]! < admitted[start]! + 60_000) end++
      widest = Math.max(widest, end - start)
    }
    expect(widest).toBe(1000)
    expect(admitted).toHaveLength(2000)
  })
})

describe('rate limits when Redis is unreachable', () => {
  it('still limits, per process, without throwing or waiting', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
    Object.assign(process.env, {
      REDIS_URL: `redis://127.0.0.1:${await closedPort()}`,
      RATE_LIMIT_KEY_PREFIX: `${prefix}:down`,
      RATE_LIMIT_STANDARD_PER_MINUTE: '10',
    })
    const decisions = await Promise.all(Array.from({ length: 15 }, () => consumeTokenRequest('token-d', 'standard')))
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(10)
    expect(decisions.filter((decision) => !decision.allowed).every((decision) => decision.retryAfterSeconds >= 1)).toBe(true)
    expect(logged).toHaveBeenCalledWith(expect.stringContaining('Redis unavailable'))

    // Once the first connection attempt has failed, every request gets its answer from this
    // process's in-memory count. (Were each to wait on a connect or command timeout, 200 of
    // them would run past the test timeout.)
    const answers = [] as RateLimitDecision[]
    for (let i = 0; i < 200; i++) answers.push(await consumeTokenRequest(`token-e-${i % 5}`, 'standard'))
    expect(answers).toHaveLength(200)
    for (let token = 0; token < 5; token++) {
      const forToken = answers.filter((_, i) => i % 5 === token)
      expect(forToken).toHaveLength(40)
      // The first 10 go through, counting down 9 left, 8 left, ... 0 left; the other 30 are refused.
      expect(forToken.slice(0, 10).map((decision) => [decision.allowed, decision.remaining])).toEqual(
        [9, 8, 7, 6, 5, 4, 3, 2, 1, 0].map((remaining) => [true, remaining]),
      )
      for (const decision of forToken.slice(10)) {
        expect(decision).toMatchObject({ allowed: false, remaining: 0, limit: 10, policy: 'per-token' })
        expect(decision.retryAfterSeconds).toBeGreaterThanOrEqual(1)
      }
    }
    expect(await consumeTokenRequest('token-e-0', 'standard')).toMatchObject({ allowed: false })
  })

  it('takes only its share of the limit (1/RATE_LIMIT_INSTANCES), so the instances together never admit more than the limit', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    Object.assign(process.env, {
      REDIS_URL: `redis://127.0.0.1:${await closedPort()}`,
      RATE_LIMIT_KEY_PREFIX: `${prefix}:share`,
      RATE_LIMIT_STANDARD_PER_MINUTE: '30',
      RATE_LIMIT_INSTANCES: '3',
    })
    const decisions = [] as RateLimitDecision[]
    for (let i = 0; i < 15; i++) decisions.push(await consumeTokenRequest('token-share', 'standard'))
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(10)
    // The headers tell the client the limit it meets now.
    expect(decisions[0]).toMatchObject({ limit: 10, remaining: 9 })
    expect(rateLimitHeaders(decisions[14]!)).toMatchObject({ 'X-RateLimit-Limit': '10', 'Retry-After': expect.any(String) })

    // Without Redis configured at all (one process, the embedded default) memory holds the whole limit.
    await closeRedis()
    resetRateLimitersForTests()
    delete process.env.REDIS_URL
    const alone = [] as RateLimitDecision[]
    for (let i = 0; i < 31; i++) alone.push(await consumeTokenRequest('token-alone', 'standard'))
    expect(alone.filter((decision) => decision.allowed)).toHaveLength(30)
  })

  it('answers from memory when Redis accepts the connection but never replies', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    const sockets = new Set<net.Socket>()
    const silent = net.createServer((socket) => sockets.add(socket))
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    try {
      Object.assign(process.env, {
        REDIS_URL: `redis://127.0.0.1:${(silent.address() as net.AddressInfo).port}`,
        RATE_LIMIT_KEY_PREFIX: `${prefix}:silent`,
        RATE_LIMIT_STANDARD_PER_MINUTE: '2',
      })
      const decisions = [] as RateLimitDecision[]
      for (let i = 0; i < 3; i++) decisions.push(await consumeTokenRequest('token-f', 'standard'))
      expect(decisions.map((decision) => [decision.allowed, decision.remaining])).toEqual([[true, 1], [true, 0], [false, 0]])
    } finally {
      await closeRedis()
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => silent.close(resolve))
    }
  })
})

type PacedResult = { admitted: [number, number][]; remaining: number[]; refused: number; reservations: number; servedFromBlocks: number; localDecisions: number }

/** An instance starting a token request every `intervalMs` for `durationMs` once told to go, on the real clock. */
function startPacedInstance(env: Record<string, string>, tokenId: string, durationMs: number, intervalMs: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'tests/support/rate-limit-paced-instance.ts'), tokenId, String(durationMs), String(intervalMs)], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  const killTimer = setTimeout(() => child.kill('SIGKILL'), durationMs + 40_000)
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
  const nextLine = async () => {
    const { value, done } = await lines.next()
    if (done) throw new Error(`instance exited early: ${stderr}`)
    return value as string
  }
  return {
    ready: nextLine().then((line) => expect(line).toBe('ready')),
    go: () => child.stdin.write('go\n'),
    result: async () => {
      const result = JSON.parse(await nextLine()) as PacedResult
      clearTimeout(killTimer)
      return result
    },
  }
}

describe('blocks of a busy budget reserved by each instance', () => {
  it('lets three instances together admit no more than the limit in any window, most of it served from blocks without a round trip', async () => {
    // 600 per 4 s (a lease of 200 ms, blocks of at most 25 per instance), asked for at 600 a
    // second in all: the budget runs out in each window and blocks are used over their lease.
    const windowMs = 4_000
    // A reservation that outlasts the 250 ms command timeout (three instances and a test run on
    // two loaded cores) is decided in memory at the instance's share, outside the shared count,
    // by design (a stalled Redis must not stall requests): the exactness claimed here is Redis's,
    // so the instances wait for it. The in-memory fallback has its own test below.
    const env = { REDIS_URL: testRedisUrl, REDIS_COMMAND_TIMEOUT_MS: '10000', RATE_LIMIT_KEY_PREFIX: `${prefix}:blocks`, RATE_LIMIT_STANDARD_PER_MINUTE: '600', RATE_LIMIT_WINDOW_SECONDS: String(windowMs / 1000), RATE_LIMIT_INSTANCES: '3' }
    const instances = [0, 1, 2].map(() => startPacedInstance(env, 'token-blocks', 10_000, 5))
    await Promise.all(instances.map((instance) => instance.ready))
    for (const instance of instances) instance.go()
    const results = await Promise.all(instances.map((instance) => instance.result()))
    expect(results.map((result) => result.localDecisions)).toEqual([0, 0, 0])

    // Each admission is known to lie between when it was asked and when it was answered (an
    // instance's event loop may answer long after Redis decided, on a busy machine). A window
    // breached for certain holds more than 600 admissions asked and answered inside one span
    // of the window's length; every span that starts where an admission was asked is counted.
    const admitted = results.flatMap((result) => result.admitted).sort((a, b) => a[0] - b[0])
    let widest = 0
    for (let start = 0; start < admitted.length; start++) {
      const from = admitted[start]![0]
      let inside = 0
      for (let index = start; index < admitted.length && admitted[index]![0] < from + windowMs; index++) if (admitted[index]![1] < from + windowMs) inside++
      widest = Math.max(widest, inside)
    }
    expect(widest).toBeLessThanOrEqual(600)
    // The budget was used, not starved by blocks withheld: 10 s is 2.5 windows.
    expect(admitted.length).toBeGreaterThanOrEqual(1_200)
    expect(results.reduce((sum, result) => sum + result.refused, 0)).toBeGreaterThan(0)
    // Most admissions came from blocks, without a round trip (a refusal still asks Redis: slots may have come back).
    const fromBlocks = results.reduce((sum, result) => sum + result.servedFromBlocks, 0)
    expect(fromBlocks).toBeGreaterThan(admitted.length / 2)
    // RateLimit's remaining stays within the budget and reaches 0 as it runs out.
    const remaining = results.flatMap((result) => result.remaining)
    expect(Math.max(...remaining)).toBeLessThan(600)
    expect(Math.min(...remaining)).toBe(0)
    // What is left in Redis: never more slots than the limit, and a member per reservation, not per slot.
    const log = `${prefix}:blocks:token:token-blocks:reserved`
    expect(Number(await admin.hget(`${log}:slots`, '#'))).toBeLessThanOrEqual(600)
    expect(await admin.zcard(log)).toBeLessThan(admitted.length / 5)
  }, 60_000)

  it('falls back to its share of the limit when Redis is away, as a per-request budget does', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    Object.assign(process.env, {
      REDIS_URL: `redis://127.0.0.1:${await closedPort()}`,
      RATE_LIMIT_KEY_PREFIX: `${prefix}:blocks-down`,
      RATE_LIMIT_STANDARD_PER_MINUTE: '300',
      RATE_LIMIT_INSTANCES: '3',
    })
    const decisions = [] as RateLimitDecision[]
    for (let i = 0; i < 150; i++) decisions.push(await consumeTokenRequest('token-blocks-down', 'standard'))
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(100)
    expect(decisions[0]).toMatchObject({ limit: 100, remaining: 99 })
    expect(rateLimitHeaders(decisions[149]!)).toMatchObject({ 'X-RateLimit-Remaining': '0', 'Retry-After': expect.any(String) })
  })
})

/** `count` requests of one token, one after the other. */
async function spend(tokenId: string, plan: 'standard' | 'enterprise', count: number): Promise<RateLimitDecision[]> {
  const decisions = [] as RateLimitDecision[]
  for (let i = 0; i < count; i++) decisions.push(await consumeTokenRequest(tokenId, plan))
  return decisions
}
const admittedOf = (decisions: RateLimitDecision[]) => decisions.filter((decision) => decision.allowed).length

// A Redis that restarts without its data mid-window (no persistence, a failover to a replica
// that had not got the newest writes, a FLUSHALL) has an empty log: a token that had used its
// whole limit got the whole limit again at once, twice the limit in one rolling window.
describe('rate limits when Redis comes back without its data', () => {
  it('keeps refusing a token that used its limit, and gives other tokens only the instance’s share, until a window after the loss; then decides in Redis again', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
    vi.spyOn(console, 'info').mockImplementation(() => {})
    const port = await closedPort()
    let server = await startOwnRedis(port)
    const windowSeconds = 8
    try {
      Object.assign(process.env, {
        REDIS_URL: `redis://127.0.0.1:${port}`,
        REDIS_COMMAND_TIMEOUT_MS: '10000',
        RATE_LIMIT_KEY_PREFIX: `${prefix}:lost`,
        // 10 a window is decided request by request, 200 from reserved blocks.
        RATE_LIMIT_STANDARD_PER_MINUTE: '10',
        RATE_LIMIT_ENTERPRISE_PER_MINUTE: '200',
        RATE_LIMIT_WINDOW_SECONDS: String(windowSeconds),
        RATE_LIMIT_INSTANCES: '2',
      })
      // A fresh instance against a fresh Redis: the whole limit, decided in Redis (not an instance's share).
      const small = await spend('token-small', 'standard', 11)
      expect(admittedOf(small)).toBe(10)
      expect(small[0]).toMatchObject({ limit: 10, remaining: 9 })
      const busy = await spend('token-busy', 'enterprise', 201)
      expect(admittedOf(busy)).toBe(200)
      expect(busy[0]).toMatchObject({ limit: 200 })
      expect(await server.client.zcard(`${prefix}:lost:token:token-small`)).toBe(10)
      expect(await server.client.exists(`${prefix}:lost:token:token-busy:reserved`)).toBe(1)

      // Redis restarts without its data, well inside the window.
      await server.stop()
      server = await startOwnRedis(port)
      await waitUntil(() => getRedis()?.status === 'ready', 'the limiter to reconnect')
      const back = Date.now()

      // The tokens that used their limits are still refused (an empty log gave them the whole limit again).
      expect(await consumeTokenRequest('token-small', 'standard')).toMatchObject({ allowed: false, remaining: 0 })
      expect(await consumeTokenRequest('token-busy', 'enterprise')).toMatchObject({ allowed: false, remaining: 0 })
      // Other tokens get this instance's share, as while Redis is away: half of each limit.
      const other = await spend('token-other', 'standard', 6)
      expect(admittedOf(other)).toBe(5)
      expect(other[0]).toMatchObject({ limit: 5, remaining: 4 })
      const otherBusy = await spend('token-other-busy', 'enterprise', 101)
      expect(admittedOf(otherBusy)).toBe(100)
      expect(otherBusy[0]).toMatchObject({ limit: 100, remaining: 99 })
      expect(rateLimitHeaders(otherBusy[100]!)).toMatchObject({ 'X-RateLimit-Limit': '100', 'X-RateLimit-Remaining': '0', 'Retry-After': expect.any(String) })
      expect(logged).toHaveBeenCalledWith(expect.stringContaining('without its data'))
      // Decided here, not in the new Redis.
      expect(await server.client.exists(`${prefix}:lost:token:token-other`, `${prefix}:lost:token:token-other-busy:reserved`)).toBe(0)
      // Still inside the window: still refused.
      expect(Date.now() - back).toBeLessThan(windowSeconds * 1000)
      expect(await consumeTokenRequest('token-small', 'standard')).toMatchObject({ allowed: false })

      // A window after the loss was noticed, the limits are shared through Redis again: the whole limit.
      await new Promise((resolve) => setTimeout(resolve, back + windowSeconds * 1000 + 1_000 - Date.now()))
      expect(await consumeTokenRequest('token-small', 'standard')).toMatchObject({ allowed: true, limit: 10, remaining: 9 })
      expect(await server.client.zcard(`${prefix}:lost:token:token-small`)).toBe(1)
      expect(await consumeTokenRequest('token-busy', 'enterprise')).toMatchObject({ allowed: true, limit: 200 })
      expect(await server.client.exists(`${prefix}:lost:token:token-busy:reserved`)).toBe(1)
    } finally {
      await server.stop()
      await closeRedis()
    }
  }, 60_000)

  it('does the same when the budgets’ keys vanish from a Redis that stays up (FLUSHALL, as seen from one prefix)', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    Object.assign(process.env, {
      REDIS_URL: testRedisUrl,
      REDIS_COMMAND_TIMEOUT_MS: '10000',
      RATE_LIMIT_KEY_PREFIX: `${prefix}:flushed`,
      RATE_LIMIT_STANDARD_PER_MINUTE: '10',
      RATE_LIMIT_ENTERPRISE_PER_MINUTE: '200',
      RATE_LIMIT_INSTANCES: '2',
    })
    expect(admittedOf(await spend('token-small', 'standard', 11))).toBe(10)
    expect(admittedOf(await spend('token-busy', 'enterprise', 201))).toBe(200)
    // Everything this instance's limiter has in Redis goes (the shared test Redis is not flushed: only this prefix's keys).
    const keys: string[] = []
    for await (const batch of admin.scanStream({ match: `${prefix}:flushed:*`, count: 500 })) keys.push(...(batch as string[]))
    expect(keys.length).toBeGreaterThan(0)
    await admin.del(...keys)

    expect(await consumeTokenRequest('token-small', 'standard')).toMatchObject({ allowed: false })
    expect(await consumeTokenRequest('token-busy', 'enterprise')).toMatchObject({ allowed: false })
    const other = await spend('token-other', 'standard', 6)
    expect(admittedOf(other)).toBe(5)
    expect(other[0]).toMatchObject({ limit: 5 })
  })

  it('restricts nothing when Redis restarts with its data', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    vi.spyOn(console, 'info').mockImplementation(() => {})
    const port = await closedPort()
    const dir = await mkdtemp(path.join(tmpdir(), 'rl-redis-'))
    let server = await startOwnRedis(port, dir)
    try {
      Object.assign(process.env, {
        REDIS_URL: `redis://127.0.0.1:${port}`,
        REDIS_COMMAND_TIMEOUT_MS: '10000',
        RATE_LIMIT_KEY_PREFIX: `${prefix}:kept`,
        RATE_LIMIT_STANDARD_PER_MINUTE: '10',
        RATE_LIMIT_INSTANCES: '2',
      })
      expect(admittedOf(await spend('token-small', 'standard', 11))).toBe(10)
      await server.stop(true)
      server = await startOwnRedis(port, dir)
      await waitUntil(() => getRedis()?.status === 'ready', 'the limiter to reconnect')
      // The log came back with Redis: the token is refused by it, and others get the whole limit from Redis.
      expect(await consumeTokenRequest('token-small', 'standard')).toMatchObject({ allowed: false, limit: 10 })
      const other = await spend('token-other', 'standard', 11)
      expect(admittedOf(other)).toBe(10)
      expect(other[0]).toMatchObject({ limit: 10, remaining: 9 })
      expect(await server.client.zcard(`${prefix}:kept:token:token-other`)).toBe(10)
    } finally {
      await server.stop()
      await closeRedis()
      await rm(dir, { recursive: true, force: true })
    }
  }, 60_000)
})
