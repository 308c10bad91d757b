import os from 'node:os'
import path from 'node:path'

export type ClusterLayout = ReturnType<typeof clusterLayout>

/** The PostgreSQL nodes Patroni runs (one leader, one synchronous replica). */
export const databaseNodes = ['pg1', 'pg2'] as const

/** Where `npm run cluster` puts each process (ports from CLUSTER_PORT_BASE, all within base…base+99) and the environment its app instances share. */
export function clusterLayout(env: NodeJS.ProcessEnv = process.env) {
  const base = Number(env.CLUSTER_PORT_BASE ?? 3800)
  const ports = {
    haproxy: base,
    varnish: base + 1,
    // HAProxy's frontend for Varnish only: it keeps the client address Varnish forwards.
    haproxyContent: base + 2,
    // HAProxy's PostgreSQL frontends: writes to Patroni's leader, reads to its replicas.
    databaseWrites: base + 3,
    databaseReads: base + 4,
    apps: [base + 11, base + 12, base + 13],
    postgres: [base + 32, base + 33],
    patroni: [base + 42, base + 43],
    etcdClient: base + 50,
    etcdPeer: base + 51,
    redis: base + 79,
    redisReplica: base + 80,
    sentinels: [base + 85, base + 86, base + 87],
    /** Left free for the tests' own stand-ins (base+90…+99). */
    spare: base + 90,
  }
  const dir = env.CLUSTER_DIR ?? path.join(os.tmpdir(), `newsroom-cluster-${base}`)
  const appEnv: Record<string, string> = {
    NODE_ENV: 'production',
    NEXT_TELEMETRY_DISABLED: '1',
    // Through HAProxy, which follows Patroni's leader (its REST checks): a failover moves the
    // address, not the app's configuration.
    DATABASE_URL: `postgresql://postgres@127.0.0.1:${ports.databaseWrites}/newsroom`,
    DATABASE_REPLICA_URL: `postgresql://postgres@127.0.0.1:${ports.databaseReads}/newsroom`,
    // Redis through Sentinel, which promotes the replica when the master fails; REDIS_URL is the
    // master as started (for the tests and for tools).
    REDIS_URL: `redis://127.0.0.1:${ports.redis}`,
    REDIS_SENTINELS: ports.sentinels.map((port) => `127.0.0.1:${port}`).join(','),
    REDIS_SENTINEL_NAME: 'newsroom',
    // While Redis is away each instance takes a third of every limit (lib/api/rate-limit.ts).
    RATE_LIMIT_INSTANCES: String(ports.apps.length),
    CONTENT_PURGE_URL: `http://127.0.0.1:${ports.varnish}/`,
    NEXTAUTH_URL: `http://127.0.0.1:${ports.haproxy}`,
    // One proxy (HAProxy) appends to X-Forwarded-For in front of every instance: the client is
    // the address it saw (lib/security/client-address.ts). docs/deploy.md explains the count.
    TRUSTED_PROXY_HOPS: '1',
    // The instances listen on loopback only: HAProxy is the way in.
    HOST: '127.0.0.1',
    // On SIGTERM an instance answers 503 on /readyz this long before it closes: HAProxy's checks
    // (every 500 ms, out after 2 failures) take it out of rotation first.
    DRAIN_DELAY_MS: '1500',
    // /metrics for the operator (and the cluster tests); set your own in production.
    METRICS_TOKEN: env.METRICS_TOKEN ?? `cluster-metrics-${base}`,
  }
  return { base, ports, dir, appEnv, scope: `newsroom-${base}` }
}
