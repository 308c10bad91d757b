import path from 'node:path'
import { defineConfig } from 'vitest/config'
import { clusterLayout } from './scripts/cluster-layout.ts'

// The cross-instance tests (`npm run test:cluster`): they start `npm run cluster` (its own
// ports, from CLUSTER_PORT_BASE, default 4700 here) and talk to it over 127.0.0.1.
process.env.CLUSTER_PORT_BASE ??= '4700'
// Passed on to the instances the suite starts (and restarts): a budget the rate-limit test can
// exhaust quickly (standard plan only; the other tests use enterprise), and a lag bound a replay
// paused by a test stays under for its few seconds, so the replica reads as behind the
// newsroom's write rather than lagging (lag counts from the last replayed commit).
process.env.RATE_LIMIT_STANDARD_PER_MINUTE ??= '40'
process.env.REPLICA_MAX_LAG_MS ??= '15000'
const layout = clusterLayout()

export default defineConfig({
  resolve: { alias: { '@': path.resolve(import.meta.dirname) } },
  test: {
    include: ['tests/cluster/**/*.test.ts'],
    globalSetup: ['tests/cluster/cluster-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 300_000,
    fileParallelism: false,
    env: { NODE_ENV: 'test', NEXT_TELEMETRY_DISABLED: '1', DATABASE_URL: layout.appEnv.DATABASE_URL!, REDIS_URL: layout.appEnv.REDIS_URL!, CLUSTER_PORT_BASE: String(layout.base) },
  },
})
