import { Command, Redis, type RedisOptions } from 'ioredis'
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
    commandTimeout: commandTimeoutMs(),
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
  failFastWhileStalled(client)
  return client
}

/**
 * Once a command goes unanswered for the command timeout, Redis counts as away until it answers
 * again: every other command fails at once (as with the offline queue off while it is away),
 * and one PING at a time asks whether it answers. Without this each request gave each of its
 * steps up in turn, one timeout after another, for as long as Redis stalled (a paused VM, a long
 * fork): a PATCH waited four, 1 s (break80). The connection is kept, so the first PING Redis
 * answers ends it: dropping and making it again left the instance deciding alone for up to the
 * reconnect backoff after Redis was back. A command that ran after its caller gave up was
 * already a case every caller answers (autoResendUnfulfilledCommands above).
 */
function failFastWhileStalled(client: Redis): void {
  const send = client.sendCommand.bind(client)
  let stalled = false
  const answered = () => {
    if (!stalled) return
    stalled = false
    console.info('Redis answers again: shared rate limits and caches resumed.')
    client.emit(answeringAgain)
  }
  const probe = () => {
    const ping = new Command('ping', [], { replyEncoding: 'utf8' })
    void send(ping)
    // Any answer (an error reply too) means Redis answers. A connection that dropped meanwhile
    // ends the stall without an answer: the client's own reconnecting takes over, and its 'ready'
    // is the answer then.
    ping.promise.then(answered, (error: Error) => {
      if (client.status !== 'ready') stalled = false
      else if (error.message === timedOut) probe()
      else answered()
    })
  }
  client.sendCommand = ((command: Command, stream?: Parameters<Redis['sendCommand']>[1]) => {
    if (stalled && !passesStall(command)) {
      command.reject(new Error(notSentWhileStalled))
      return command.promise
    }
    const sent = send(command, stream)
    command.promise.catch((error: Error) => {
      if (stalled || error.message !== timedOut || client.status !== 'ready') return
      stalled = true
      console.error(`Redis did not answer within ${commandTimeoutMs()} ms: until it answers again this instance works as if it were away.`)
      probe()
    })
    return sent
  }) as Redis['sendCommand']
}

// ioredis's own words for a command the command timeout gave up on.
const timedOut = 'Command timed out'

// Commands sent even while Redis stalls, each waiting out the command timeout as before: what a
// writer's answer must not go out without (lib/generation-counter.ts: a change's generation
// advance). Refused at once, the advance of an edit made during a short stall was lost and the
// edit answered; a read already waiting in Redis on another instance was then answered, as the
// stall ended, with the generation from before it, and served the article as it was (break81).
const passingStall: ((command: Command) => boolean)[] = []

/** Lets commands `passes` names through a stall (see passingStall); for the few a write's answer waits for. */
export function sendEvenWhileStalled(passes: (command: Command) => boolean): void {
  passingStall.push(passes)
}

const passesStall = (command: Command) => passingStall.some((passes) => passes(command))

/** What a command refused while Redis stalls fails with: it was never sent (redis-take-back.ts sends such commands again). */
export const notSentWhileStalled = 'Redis is not asked while it stalls (it did not answer within the command timeout); this command was not sent'

const answeringAgain = 'newsroom:answering-again'

/**
 * Runs `listener` each time the client can be asked again after it could not: a new connection
 * ready, or the end of a stall on the same connection (failFastWhileStalled). What was put off
 * while Redis was away (a take-back, a lost generation advance) is sent then.
 */
export function onAnsweringAgain(redis: Redis, listener: () => void): void {
  redis.on('ready', listener)
  redis.on(answeringAgain, listener)
}

const commandTimeoutMs = () => positiveMilliseconds(process.env.REDIS_COMMAND_TIMEOUT_MS, 250)

/** A whole number of milliseconds from the environment, or `fallback` when unset, empty or not one. */
function positiveMilliseconds(raw: string | undefined, fallback: number): number {
  const value = Number(raw)
  return raw !== undefined && raw.trim() !== '' && Number.isInteger(value) && value > 0 ? value : fallback
}
