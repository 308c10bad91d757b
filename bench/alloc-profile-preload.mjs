/**
 * Preloaded into a service (`NODE_OPTIONS=--import=./bench/alloc-profile-preload.mjs`, ALLOC_DIR
 * for where): samples its allocations, the ones the collector freed included, and writes them
 * as alloc-<pid>.json when it is stopped, for bench/alloc-profile-summary.ts. ALLOC_MINOR=0
 * leaves out what young-generation collections freed. Only the server (dist/start.mjs) samples.
 */
import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector'

if (process.argv[1]?.endsWith('start.mjs')) {
  const session = new Session()
  session.connect()
  session.post('HeapProfiler.startSampling', { samplingInterval: 16384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: process.env.ALLOC_MINOR !== '0' })
  let written = false
  const write = () => {
    if (written) return
    written = true
    session.post('HeapProfiler.stopSampling', (error, result) => {
      if (!error) writeFileSync(`${process.env.ALLOC_DIR ?? '/tmp'}/alloc-${process.pid}.json`, JSON.stringify(result.profile))
    })
  }
  process.prependListener('SIGTERM', write)
  process.on('exit', write)
}
