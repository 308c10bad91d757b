import { startCluster, stopCluster } from '../../scripts/cluster.ts'

/**
 * Starts the cluster once for the cluster tests (on a free port base, vitest.cluster.config.ts)
 * and, after them, stops it and removes its state. A cluster that fails to start cleans up
 * after itself (startCluster).
 */
export default async function setup() {
  await startCluster()
  return async () => stopCluster({ removeState: true })
}
