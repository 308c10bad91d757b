import { sqlPool } from '../db/client.ts'
import { replicaAnswers, replicaConfigured } from '../db/read-routing.ts'
import { firstConnectionSettled, getRedis } from '../redis.ts'
import { backfillState, type BackfillReport } from '../db/data-migrations/backfill-state.ts'
import { isDraining } from '../server/lifecycle.ts'
import { eventQueueAdvice, eventQueueState, type EventQueueState } from './event-queue-health.ts'

export type DependencyCheck = { ok: boolean; latency_ms?: number; error?: string; skipped?: string; degraded?: string }

const degradedWithoutRedis = 'serving without Redis: rate limits per instance at 1/RATE_LIMIT_INSTANCES of each limit, no shared caches; reconnecting by itself'

export type Readiness = {
  ready: boolean
  /** Set while the primary is away but the replica answers: the instance serves reads. */
  serving?: string
  /** Set once the instance is stopping (SIGTERM): it serves on for DRAIN_DELAY_MS but takes no new traffic. */
  draining?: boolean
  checks: { database: DependencyCheck; redis: DependencyCheck }
  /** Facts, not conditions of readiness: a backlog waits for the queue, it does not stop the API. */
  events: { queue: EventQueueState; outbox_waiting: number | null; oldest_waiting_seconds: number | null; advice: string | null }
  /**
   * Also a fact, not a condition: the backfill this instance runs while it serves (null when it
   * had nothing to do). The instance answers correctly meanwhile (bodies not yet cleaned are
   * sanitised as they are read), so a load balancer should keep sending it traffic.
   */
  data_migration: BackfillReport | null
}

// A load balancer polls this every few seconds: each check must answer or fail fast.
const checkTimeoutMs = 2_000

function withTimeout<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${checkTimeoutMs} ms`)), checkTimeoutMs)
  })
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer))
}

async function timed(what: string, work: () => Promise<unknown>): Promise<DependencyCheck> {
  const started = performance.now()
  try {
    await withTimeout(work(), what)
    return { ok: true, latency_ms: Math.round((performance.now() - started) * 10) / 10 }
  } catch (error) {
    return { ok: false, error: (error as Error).message }
  }
}

type OutboxBacklog = { waiting: number; oldest: Date | null }

async function outboxBacklog(): Promise<OutboxBacklog> {
  const { rows } = await sqlPool.query<{ waiting: string; oldest: Date | null }>(
    'SELECT count(*) AS waiting, min(created_at) AS oldest FROM events WHERE sent_to_queue_at IS NULL',
  )
  return { waiting: Number(rows[0]!.waiting), oldest: rows[0]!.oldest }
}

async function redisCheck(): Promise<DependencyCheck> {
  const client = getRedis()
  if (!client) return { ok: true, skipped: 'REDIS_URL is not set; per-process state is used' }
  // A new client fails commands until it has connected, instead of queueing them (once, at start).
  await firstConnectionSettled(client)
  // Not connected: the client reconnects by itself in the background; a PING now would only fail.
  if (client.status !== 'ready') return { ok: false, error: `Redis is not connected (${client.status})`, degraded: degradedWithoutRedis }
  const check = await timed('Redis', () => client.ping())
  return check.ok ? check : { ...check, degraded: degradedWithoutRedis }
}

/**
 * What /readyz reports: the database must answer for the instance to take traffic; Redis is
 * reported (degraded when away) but is not a condition, since the instance serves without it; the event queue's state and the outbox backlog are reported beside
 * them, because writes go on (into the outbox) while the queue is away.
 */
export async function checkReadiness(): Promise<Readiness> {
  let backlog: OutboxBacklog | null = null
  // Side by side, and Redis without a round trip while it is away: Redis is no condition of
  // readiness, so it must not lengthen the answer either. Waited for in turn (the database, then
  // a PING bounded by the client's 250 ms command timeout), a check on a busy host outlasted
  // HAProxy's 500 ms check timeout during a Redis outage and the instance began leaving rotation.
  const [database, redis] = await Promise.all([
    timed('the database', async () => {
      backlog = await outboxBacklog()
    }),
    redisCheck(),
  ])
  // The primary away (a failover under way): reads still go to the replica, so an instance
  // that reaches it stays in rotation; its writes answer 503 with Retry-After meanwhile.
  const readsOnly = !database.ok && replicaConfigured() && (await withTimeout(replicaAnswers(), 'the replica').catch(() => false))
  const queue = eventQueueState()
  const found = backlog as OutboxBacklog | null
  // A stopping instance says so first, so the load balancer stops sending to it before it closes.
  const draining = isDraining()
  return {
    // Redis is not a condition: it holds caches and limit windows, and the instance serves without it.
    ready: (database.ok || readsOnly) && !draining,
    ...(readsOnly ? { serving: 'reads only: the primary database is unreachable, writes answer 503 with Retry-After until it (or a promoted replica) is back' } : {}),
    checks: { database, redis },
    ...(draining ? { draining: true } : {}),
    events: {
      queue,
      outbox_waiting: found?.waiting ?? null,
      oldest_waiting_seconds: found?.oldest ? Math.max(0, Math.round((Date.now() - found.oldest.getTime()) / 1000)) : null,
      advice: queue === 'configured' && (found?.waiting ?? 0) === 0 ? null : eventQueueAdvice[queue],
    },
    data_migration: backfillState.report,
  }
}
