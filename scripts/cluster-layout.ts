import os from 'node:os'
import path from 'node:path'

export type ClusterLayout = ReturnType<typeof clusterLayout>

/** Where `npm run cluster` puts each process (ports from CLUSTER_PORT_BASE) and the environment its app instances share. */
export function clusterLayout(env: NodeJS.ProcessEnv = process.env) {
  const base = Number(env.CLUSTER_PORT_BASE ?? 3800)
  const ports = { haproxy: base, varnish: base + 1, apps: [base + 11, base + 12, base + 13], primary: base + 32, replica: base + 33, redis: base + 79 }
  const dir = env.CLUSTER_DIR ?? path.join(os.tmpdir(), `newsroom-cluster-${base}`)
  const appEnv: Record<string, string> = {
    NODE_ENV: 'production',
    NEXT_TELEMETRY_DISABLED: '1',
    DATABASE_URL: `postgresql://postgres@127.0.0.1:${ports.primary}/newsroom`,
    DATABASE_REPLICA_URL: `postgresql://postgres@127.0.0.1:${ports.replica}/newsroom`,
    REDIS_URL: `redis://127.0.0.1:${ports.redis}`,
    CONTENT_PURGE_URL: `http://127.0.0.1:${ports.varnish}/`,
    NEXTAUTH_URL: `http://127.0.0.1:${ports.haproxy}`,
    // One secrets file for every instance: a session signed by one is read by the others.
    LOCAL_SECRETS_FILE: path.join(dir, 'secrets.json'),
    // On SIGTERM an instance answers 503 on /readyz this long before it closes: HAProxy's checks
    // (every 500 ms, out after 2 failures) take it out of rotation first.
    DRAIN_DELAY_MS: '1500',
    // /metrics for the operator (and the cluster tests); set your own in production.
    METRICS_TOKEN: env.METRICS_TOKEN ?? `cluster-metrics-${base}`,
  }
  return { base, ports, dir, appEnv }
}
