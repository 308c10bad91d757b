import { startCluster, stopCluster } from '../../scripts/cluster.ts'

/** Starts the cluster once for the cluster tests and stops it after them. */
export default async function setup() {
  await stopCluster()
  await startCluster()
  return async () => stopCluster()
}
