import { Redis, type RedisOptions } from 'ioredis'
import { processSingleton } from './process-singleton.ts'
import { hotSetting } from './config/hot-setting.ts'

// One client per process, however many copies of this module are loaded (process-singleton.ts).
const shared = processSingleton<{ newsroomRedis?: { url: string; client: Redis } }>('redis', () => ({}))

/**
 * The process's shared Redis client, or undefined when neither REDIS_URL nor REDIS_SENTINELS
 * is set: the embedded default runs without Redis, and whatever uses this falls back to
 * per-process state.
 *
 * Redis holds only caches and rate-limit windows, so it is optional at run time too: while it
 * is away the instance stays ready (lib/ops/readiness.ts), limits on its own at its share of
 * each limit (lib/api/rate-limit.ts, RATE_LIMIT_INSTANCES), skips the shared caches, and the
 * client reconnects by itself. `newsroom_redis_up` (lib/ops/metrics.ts) and the log say so.
 *
 * With REDIS_SENTINELS (host:port,host:port…) the client asks Redis Sentinel for the current
 * master of REDIS_SENTINEL_NAME (default "newsroom") and follows a failover by itself.
 *
 * The options suit a rate limiter that sits in front of every request: a command either
 * reaches Redis now or fails now, so the caller can fall back instead of waiting.
 */
export function getRedis(): Redis | undefined {
  const url = redisTarget()
  if (!url) return undefined
  const current = shared.newsroomRedis
  if (current && current.url === url) return current.client
  // The URL changed under us (tests point the process at another server): drop the old client.
  current?.client.disconnect()
  const client = createClient(url)
  shared.newsroomRedis = { url, client }
  return client
}

/** Where Redis is: REDIS_SENTINELS (as "sentinel:<name>@<list>") wins over REDIS_URL. */
function redisTarget(): string | undefined {
  const sentinels = hotSetting('REDIS_SENTINELS')?.trim()
  if (sentinels) return `sentinel:${hotSetting('REDIS_SENTINEL_NAME') || 'newsroom'}@${sentinels}`
  return hotSetting('REDIS_URL') || undefined
}

/** Whether Redis is configured and, if so, whether this process reaches it now (for the metric and /readyz). */
export function redisState(): 'not-configured' | 'up' | 'down' {
  const client = redisTarget() ? getRedis() : undefined
  if (!client) return 'not-configured'
  return client.status === 'ready' ? 'up' : 'down'
}

/** Closes the shared client, if any; the next getRedis() opens a new one. */
export async function closeRedis(): Promise<void> {
  const current = shared.newsroomRedis
  if (!current) return
  shared.newsroomRedis = undefined
  // QUIT waits for replies still in flight; a client that is not connected has none, and
  // would only keep reconnecting, so it is cut off at once.
  if (current.client.status === 'ready') {
    await current.client.quit().catch(() => current.client.disconnect())
  } else {
    current.client.disconnect()
  }
}

/**
 * Resolves once a new client has connected, failed, or had `timeoutMs` to try: with the
 * offline queue off, commands sent before that would fail at once instead of waiting.
 */
export function whenSettled(redis: Redis, timeoutMs = 1_500): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve()
  return new Promise((resolve) => {
    const settle = () => {
      clearTimeout(timer)
      redis.off('ready', settle).off('error', settle).off('end', settle)
      resolve()
    }
    const timer = setTimeout(settle, timeoutMs)
    timer.unref()
    redis.once('ready', settle).once('error', settle).once('end', settle)
  })
}

const firstConnections = new WeakMap<Redis, Promise<void>>()

/**
 * Resolves once the client's first connection attempt has settled (at most `whenSettled`'s
 * wait, once per client); during a later outage it resolves at once, so callers fall back
 * instead of waiting on every request.
 */
export function firstConnectionSettled(redis: Redis): Promise<void> {
  let settled = firstConnections.get(redis)
  if (!settled) {
    settled = whenSettled(redis)
    firstConnections.set(redis, settled)
  }
  return settled
}

function createClient(url: string): Redis {
  const sentinel = /^sentinel:([^@]+)@(.+)$/.exec(url)
  const where = sentinel
    ? {
        name: sentinel[1]!,
        sentinels: sentinel[2]!.split(',').map((entry) => {
          const [host, port] = entry.trim().split(':')
          return { host: host!, port: Number(port ?? 26379) }
        }),
        // Asked again at each reconnect, so a promoted replica is found without a restart.
        sentinelRetryStrategy: (attempt: number) => Math.min(attempt * 100, 2_000),
      }
    : undefined
  const options: RedisOptions = {
    // Queued commands would make requests wait for a reconnect; failing fast lets the rate
    // limiter use its in-memory insurance instead.
    enableOfflineQueue: false,
    connectTimeout: 1_000,
    // A Redis that accepts the connection but stalls must not stall requests either.
    commandTimeout: positiveMilliseconds(process.env.REDIS_COMMAND_TIMEOUT_MS, 250),
    maxRetriesPerRequest: 1,
    // A command sent but unanswered when the connection dropped is failed, not sent again on the
    // new one: it may have run already (its answer lost in the reset), and the rate limiter's
    // reservation scripts are not idempotent: run twice under one tag, a reservation's slots were
    // counted twice and one count was never freed, a busy token losing part of its limit for good
    // (break70). Every caller has its answer to a failed command (memory, no cache, a retry).
    autoResendUnfulfilledCommands: false,
    // Keep trying in the background, at most every 2 s, so the shared count resumes by itself.
    retryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
    // Commands issued in the same tick by concurrent requests (rate limit, cache, generation) go
    // out in one socket write: under load one write per command cost more CPU than the commands.
    // Commands keep their order only among themselves, so this codebase sends no explicit pipelines.
    enableAutoPipelining: true,
  }
  const client = where ? new Redis({ ...options, ...where }) : new Redis(url, options)
  // Without a listener ioredis reports every failed reconnect as an unhandled error; one line
  // per outage is enough.
  let down = false
  client.on('error', (error: Error) => {
    if (down) return
    down = true
    console.error(
      `Redis unavailable (${error.message}): degraded mode — this instance stays ready, limits requests on its own at 1/${process.env.RATE_LIMIT_INSTANCES || 1} of each limit, skips the shared caches, and reconnects by itself.`,
    )
  })
  client.on('ready', () => {
    if (down) console.info('Redis reachable again: shared rate limits and caches resumed.')
    down = false
  })
  return client
}

/** A whole number of milliseconds from the environment, or `fallback` when unset, empty or not one. */
function positiveMilliseconds(raw: string | undefined, fallback: number): number {
  const value = Number(raw)
  return raw !== undefined && raw.trim() !== '' && Number.isInteger(value) && value > 0 ? value : fallback
}
