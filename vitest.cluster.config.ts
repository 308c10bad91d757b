import { execFileSync } from 'node:child_process'
import path from 'node:path'
import { defineConfig } from 'vitest/config'
import { BaseSequencer, type TestSpecification } from 'vitest/node'
import { clusterLayout } from './scripts/cluster-layout.ts'

// The cross-instance tests (`npm run test:cluster`): they start `npm run cluster` (its own
// ports, from CLUSTER_PORT_BASE, default 4700 here) and talk to it over 127.0.0.1.
//
// A cluster already running on that base (an operator's, another run's) is left alone: the
// suite moves to the next base (+100) whose ports are all free, and runs its own there.
function taken(port: number): boolean {
  try {
    execFileSync('bash', ['-c', `exec 3<>/dev/tcp/127.0.0.1/${port}`], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}
function freeBase(requested: number): number {
  for (let base = requested; base < requested + 1_000; base += 100) {
    const ports = Object.values(clusterLayout({ ...process.env, CLUSTER_PORT_BASE: String(base) }).ports).flat()
    if (!ports.some(taken)) return base
  }
  throw new Error(`No free cluster port base from ${requested} to ${requested + 900}`)
}
const requested = Number(process.env.CLUSTER_PORT_BASE ?? 4700)
process.env.CLUSTER_PORT_BASE = String(freeBase(requested))
if (process.env.CLUSTER_PORT_BASE !== String(requested)) {
  console.log(`Ports of cluster base ${requested} are in use (a cluster runs there?): the suite uses base ${process.env.CLUSTER_PORT_BASE}.`)
  delete process.env.CLUSTER_DIR
}
// Passed on to the instances the suite starts (and restarts): a budget the rate-limit test can
// exhaust quickly (standard plan only; the other tests use enterprise), and a lag bound a replay
// paused by a test stays under for its few seconds, so the replica reads as behind the
// newsroom's write rather than lagging (lag counts from the last replayed commit).
process.env.RATE_LIMIT_STANDARD_PER_MINUTE ??= '40'
process.env.REPLICA_MAX_LAG_MS ??= '15000'
// Small per-address budgets, so the test of two clients behind the proxy exhausts them quickly.
process.env.RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE ??= '30'
process.env.RATE_LIMIT_SIGN_IN_PER_ADDRESS ??= '8'
const layout = clusterLayout()

/**
 * Files in name order, the PostgreSQL failover last: it leaves the old leader rejoining as a
 * replica (a minute of pg_rewind and recovery here), which no later file then has to wait for.
 */
class ClusterOrder extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => (file.moduleId.includes('postgres-failover') ? 1 : 0)
    return [...files].sort((a, b) => rank(a) - rank(b) || a.moduleId.localeCompare(b.moduleId))
  }
}

export default defineConfig({
  resolve: { alias: { '@': path.resolve(import.meta.dirname) } },
  test: {
    include: ['tests/cluster/**/*.test.ts'],
    globalSetup: ['tests/cluster/cluster-setup.ts'],
    testTimeout: 90_000,
    hookTimeout: 300_000,
    fileParallelism: false,
    sequence: { sequencer: ClusterOrder },
    env: {
      NODE_ENV: 'test',
      NEXT_TELEMETRY_DISABLED: '1',
      DATABASE_URL: layout.appEnv.DATABASE_URL!,
      REDIS_URL: layout.appEnv.REDIS_URL!,
      CLUSTER_PORT_BASE: String(layout.base),
      ...(process.env.CLUSTER_DIR && { CLUSTER_DIR: process.env.CLUSTER_DIR }),
    },
  },
})
