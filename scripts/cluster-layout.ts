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
    // Ceph behind the RADOS Gateway (scripts/object-store.ts): its monitor here, the gateway
    // (S3) at +53, the daemons' messengers on +54…+71.
    objectStore: base + 52,
    objectStoreGateway: base + 53,
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
    // The media store every instance shares: the cluster's own RADOS Gateway (S3). Its auth is
    // `none` on loopback, so these keys only name the gateway's user; production points
    // MEDIA_S3_ENDPOINT at a real S3 service with real credentials.
    MEDIA_S3_ENDPOINT: `http://127.0.0.1:${ports.objectStoreGateway}`,
    MEDIA_S3_BUCKET: 'newsroom-media',
    MEDIA_S3_REGION: 'default',
    MEDIA_S3_ACCESS_KEY_ID: 'cluster-media',
    MEDIA_S3_SECRET_ACCESS_KEY: `cluster-media-secret-${base}`,
    // Rendition URLs in records and the content API name Varnish, the site-facing cache.
    MEDIA_PUBLIC_BASE_URL: `http://127.0.0.1:${ports.varnish}`,
  }
  return { base, ports, dir, appEnv, scope: `newsroom-${base}` }
}
