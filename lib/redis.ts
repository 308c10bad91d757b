import { Redis } from 'ioredis'
import { processSingleton } from './process-singleton.ts'

// One client per process, however many copies of this module are loaded (process-singleton.ts).
const shared = processSingleton<{ newsroomRedis?: { url: string; client: Redis } }>('redis', () => ({}))

/**
 * The process's shared Redis client, or undefined when REDIS_URL is not set: the embedded
 * default runs without Redis, and whatever uses this falls back to per-process state.
 *
 * The options suit a rate limiter that sits in front of every request: a command either
 * reaches Redis now or fails now, so the caller can fall back instead of waiting.
 */
export function getRedis(): Redis | undefined {
  const url = process.env.REDIS_URL
  if (!url) return undefined
  const current = shared.newsroomRedis
  if (current && current.url === url) return current.client
  // The URL changed under us (tests point the process at another server): drop the old client.
  current?.client.disconnect()
  const client = createClient(url)
  shared.newsroomRedis = { url, client }
  return client
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
  const client = new Redis(url, {
    // Queued commands would make requests wait for a reconnect; failing fast lets the rate
    // limiter use its in-memory insurance instead.
    enableOfflineQueue: false,
    connectTimeout: 1_000,
    // A Redis that accepts the connection but stalls must not stall requests either.
    commandTimeout: 250,
    maxRetriesPerRequest: 1,
    // Keep trying in the background, at most every 2 s, so the shared count resumes by itself.
    retryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
    // Commands issued in the same tick by concurrent requests (rate limit, cache, generation) go
    // out in one socket write: under load one write per command cost more CPU than the commands.
    // Commands keep their order only among themselves, so this codebase sends no explicit pipelines.
    enableAutoPipelining: true,
  })
  // Without a listener ioredis reports every failed reconnect as an unhandled error; one line
  // per outage is enough.
  let down = false
  client.on('error', (error: Error) => {
    if (down) return
    down = true
    console.error(`Redis unavailable (${error.message}); using per-process fallbacks until it is back.`)
  })
  client.on('ready', () => {
    if (down) console.info('Redis reachable again.')
    down = false
  })
  return client
}
