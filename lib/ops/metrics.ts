import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import { sqlPool } from '../db/client.ts'
import { processSingleton } from '../process-singleton.ts'
import { redisState } from '../redis.ts'

/**
 * The process's Prometheus metrics. One registry per process (process-singleton.ts): the /v1
 * server records into the same counters that /metrics, served through Next, reads.
 */
function createMetrics() {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  return {
    registry,
    apiRequests: new Counter({
      name: 'newsroom_api_requests_total',
      help: '/v1 requests answered, by route template, method and status.',
      labelNames: ['route', 'method', 'status'] as const,
      registers: [registry],
    }),
    apiDuration: new Histogram({
      name: 'newsroom_api_request_duration_seconds',
      help: '/v1 request latency, from the request reaching the handler to its response.',
      labelNames: ['route', 'method'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    rateLimitRejections: new Counter({
      name: 'newsroom_rate_limit_rejections_total',
      help: 'Requests refused with 429, by whether the caller had a valid token.',
      labelNames: ['caller'] as const,
      registers: [registry],
    }),
    webhookAttempts: new Counter({
      name: 'newsroom_webhook_attempts_total',
      help: 'Webhook delivery attempts, by outcome.',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    subscriptionsDisabled: new Counter({
      name: 'newsroom_webhook_subscriptions_disabled_total',
      help: 'Webhook subscriptions disabled automatically after failed deliveries.',
      registers: [registry],
    }),
    contentPurges: new Counter({
      name: 'newsroom_content_purges_total',
      help: 'Outbox purge events the shared cache (CONTENT_PURGE_URL) took.',
      registers: [registry],
    }),
    contentPurgeFailures: new Counter({
      name: 'newsroom_content_purge_failures_total',
      help: 'Purge requests the shared cache (CONTENT_PURGE_URL) refused or did not answer; their events stay in the outbox and are re-sent.',
      registers: [registry],
    }),
    // Labelled by the server (host:port), so each series exists only once the server is
    // configured: an unlabelled gauge would read 0 ("down") on an instance without one.
    replicaUp: new Gauge({
      name: 'newsroom_replica_up',
      help: 'Whether the replica (DATABASE_REPLICA_URL) answered as a replica when last asked (1) or not (0); absent without a replica.',
      labelNames: ['server'] as const,
      registers: [registry],
    }),
    replicaLag: new Gauge({
      name: 'newsroom_replica_lag_seconds',
      help: 'Age of the replica\'s last replayed transaction while received WAL waits to be replayed (0 when caught up); absent without a replica.',
      labelNames: ['server'] as const,
      registers: [registry],
    }),
    replicaFallbacks: new Counter({
      name: 'newsroom_replica_fallback_reads_total',
      help: 'Reads that could go to the replica but went to the primary, by reason (lagging, down, behind the newsroom\'s last write).',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    outboxWaiting: new Gauge({
      name: 'newsroom_outbox_waiting_events',
      help: 'Events committed but not yet handed to the queue.',
      registers: [registry],
    }),
    outboxOldestAge: new Gauge({
      name: 'newsroom_outbox_oldest_waiting_seconds',
      help: 'Age of the oldest event not yet handed to the queue (0 when none waits).',
      registers: [registry],
    }),
    redisUp: new Gauge({
      name: 'newsroom_redis_up',
      help: '1 while Redis is reachable, 0 while it is configured but away (degraded mode: per-instance rate limits at 1/RATE_LIMIT_INSTANCES of each limit, no shared caches); absent without Redis. server: REDIS_URL\'s host, or "sentinels" when REDIS_SENTINELS leads to the master.',
      labelNames: ['server'] as const,
      registers: [registry],
      collect() {
        this.reset()
        const state = redisState()
        if (state === 'not-configured') return
        const url = process.env.REDIS_URL
        this.set({ server: process.env.REDIS_SENTINELS ? 'sentinels' : url ? serverOf(url) : 'unknown' }, state === 'up' ? 1 : 0)
      },
    }),
    rateLimitLocalDecisions: new Counter({
      name: 'newsroom_rate_limit_local_decisions_total',
      help: 'Rate-limit decisions made by this instance alone because Redis was away, or came back without its data less than a window ago (at its share of the limit).',
      registers: [registry],
    }),
    poolConnections: new Gauge({
      name: 'newsroom_db_pool_connections',
      help: 'Database pool connections by state.',
      labelNames: ['state'] as const,
      registers: [registry],
      collect() {
        this.set({ state: 'total' }, sqlPool.totalCount)
        this.set({ state: 'idle' }, sqlPool.idleCount)
        this.set({ state: 'in_use' }, sqlPool.totalCount - sqlPool.idleCount)
        this.set({ state: 'waiting' }, sqlPool.waitingCount)
      },
    }),
  }
}

export const metrics = processSingleton('metrics', createMetrics)

/** host:port of a connection URL, without its credentials: a label that names a server. */
export function serverOf(url: string): string {
  try {
    const parsed = new URL(url)
    return parsed.port ? `${parsed.hostname}:${parsed.port}` : parsed.hostname
  } catch {
    return 'unparsable'
  }
}

/**
 * The label of a route's requests, from its declared path: `/v1/articles/{article_id}` →
 * `/v1/articles/{id}`. Taken from the declaration, not the requested path, so no path a caller
 * sends (an id of another shape, any text at all) can start a new time series or log route.
 */
export function routeTemplate(declaredPath: string): string {
  return declaredPath.replace(/\{[^}]+\}/g, '{id}')
}

/** Reads the outbox (one indexed aggregate) when scraped, not on the request path. */
async function refreshOutbox(): Promise<void> {
  const { rows } = await sqlPool.query<{ waiting: string; oldest: Date | null }>('SELECT count(*) AS waiting, min(created_at) AS oldest FROM events WHERE sent_to_queue_at IS NULL')
  metrics.outboxWaiting.set(Number(rows[0]!.waiting))
  metrics.outboxOldestAge.set(rows[0]!.oldest ? Math.max(0, (Date.now() - rows[0]!.oldest.getTime()) / 1000) : 0)
}

/** The Prometheus text exposition of every metric. */
export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  // The replica's state is asked afresh when scraped (read-routing.ts sets its gauges), not
  // only when a read happens to need it; imported here, late, as read-routing imports this file.
  const { refreshReplicaStatus } = await import('../db/read-routing.ts')
  await Promise.all([refreshOutbox().catch(() => undefined), refreshReplicaStatus().catch(() => undefined)])
  return { contentType: metrics.registry.contentType, body: await metrics.registry.metrics() }
}
