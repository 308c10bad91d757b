import pg from 'pg'
import { afterAll, beforeAll } from 'vitest'
import { createTestTenant, type TestTenant } from './fixtures.ts'
import { closedPort, startOwnRedis } from './own-redis.ts'
import { spawnApiServer, type SpawnedApiServer } from './spawn-api-server.ts'

/**
 * An instance killed between a change's commit and its answer: `send` goes to a new instance
 * (`spawn`) while Redis is stopped (SIGSTOP), and that instance is SIGKILLed once the change it
 * makes under the Idempotency-Key `key` has committed (the key's record says so), before it has
 * answered. The span between a commit and its answer is short by design (once a command to Redis
 * has timed out the instance stops waiting on Redis, lib/redis.ts), so the kill can come after
 * the answer: then the whole attempt is made again, with what `prepare` makes anew, up to `tries`
 * times. Returns what `prepare` made for the attempt whose instance died unanswered.
 */
export async function killedBetweenCommitAndAnswer<T>(options: {
  redisPid: number
  monitor: pg.Client
  spawn: () => Promise<SpawnedApiServer>
  prepare: () => Promise<T>
  send: (server: SpawnedApiServer, prepared: T, key: string) => Promise<unknown>
  tries?: number
}): Promise<{ prepared: T; key: string }> {
  const tries = options.tries ?? 8
  for (let attempt = 1; attempt <= tries; attempt++) {
    const server = await options.spawn()
    const prepared = await options.prepare()
    const key = `killed-after-commit-${Date.now()}-${attempt}`
    process.kill(options.redisPid, 'SIGSTOP')
    let outcome: Promise<string>
    try {
      outcome = options.send(server, prepared, key).then(
        () => 'answered',
        () => 'connection lost',
      )
      let committed = false
      for (const deadline = Date.now() + 10_000; Date.now() < deadline && !committed; ) {
        const { rows } = await options.monitor.query('SELECT 1 FROM idempotency_records WHERE key = $1 AND committed_at IS NOT NULL', [key])
        committed = rows.length > 0
      }
      server.child.kill('SIGKILL')
      if (!committed) throw new Error(`the change under ${key} never committed`)
    } finally {
      process.kill(options.redisPid, 'SIGCONT')
    }
    if ((await outcome) === 'connection lost') return { prepared, key }
  }
  throw new Error(`in ${tries} tries the instance always answered before it was killed`)
}

/** A JSON request's answer, parsed; rejects when the connection is lost (the instance killed). */
export async function sendJson(url: string, init: RequestInit = {}): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(20_000) })
  const text = await response.text()
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined }
}

export const bearer = (token: string, extra: Record<string, string> = {}) => ({ Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...extra })

/**
 * For a file of tests that kill an instance between a commit and its answer: a Redis of its own
 * (stopped and resumed by killedBetweenCommitAndAnswer), a newsroom, a second instance that
 * lives through the file (where the retries go), and a connection to watch the keys' records.
 * `killed` makes the first instance anew for each attempt (it is SIGKILLed each time).
 */
export function killedAfterCommitFixture(name: string) {
  const state = {} as { newsroom: TestTenant; second: SpawnedApiServer; first?: SpawnedApiServer; redis: Awaited<ReturnType<typeof startOwnRedis>>; redisPid: number; monitor: pg.Client; env: Record<string, string> }
  beforeAll(async () => {
    state.redis = await startOwnRedis(await closedPort())
    state.redisPid = Number(/process_id:(\d+)/.exec(await state.redis.client.info('server'))![1])
    state.newsroom = await createTestTenant({ plan: 'enterprise' })
    // A short idempotency lease: the retry takes the dead attempt's claim over after it.
    state.env = { REDIS_URL: state.redis.url, RATE_LIMIT_KEY_PREFIX: `${name}:${Date.now()}`, IDEMPOTENCY_LEASE_MS: '2000' }
    state.second = await spawnApiServer(process.env.DATABASE_URL!, { env: state.env })
    state.monitor = new pg.Client({ connectionString: process.env.DATABASE_URL })
    await state.monitor.connect()
  })
  afterAll(async () => {
    try {
      process.kill(state.redisPid, 'SIGCONT')
    } catch {
      // already gone
    }
    await Promise.all([state.first?.stop(), state.second?.stop()])
    await state.redis?.stop()
    await state.monitor?.end()
  })
  return {
    get newsroom() {
      return state.newsroom
    },
    get second() {
      return state.second
    },
    killed<T>(prepare: () => Promise<T>, send: (server: SpawnedApiServer, prepared: T, key: string) => Promise<unknown>) {
      return killedBetweenCommitAndAnswer({
        redisPid: state.redisPid,
        monitor: state.monitor,
        spawn: async () => (state.first = await spawnApiServer(process.env.DATABASE_URL!, { env: state.env })),
        prepare,
        send,
      })
    },
  }
}
