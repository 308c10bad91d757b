import { startCluster } from '/work/wt/failures/scripts/cluster.ts'
const t = Date.now()
await startCluster({ apps: false })
console.log('infra up in', Date.now() - t, 'ms')
