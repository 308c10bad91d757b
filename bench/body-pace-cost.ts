/**
 * CPU the body-pace watcher (lib/api/body-pace.ts) costs a large upload: 20 bodies of N chunks of
 * B bytes (default 1,600 of 16 KB, 25 MB) through one watcher each, on a fake clock 50 µs a chunk
 * apart. Tiny chunks (B = 32) are a hostile client's: the cost a chunk must not grow with them.
 *
 *   npx tsx bench/body-pace-cost.ts [chunks] [chunk bytes]
 */
import { watchBodyPace } from '../lib/api/body-pace.ts'
const chunks = Number(process.argv[2] ?? 1600)
const chunkBytes = Number(process.argv[3] ?? 16384)
for (let round = 0; round < 5; round++) {
  let clock = 0
  const start = process.cpuUsage()
  const t0 = performance.now()
  for (let body = 0; body < 20; body++) {
    const pace = watchBodyPace(() => { throw new Error('cut') }, () => clock)
    for (let i = 0; i < chunks; i++) { clock += 0.05; pace.received(chunkBytes) }
    pace.stop()
  }
  const cpu = process.cpuUsage(start)
  console.log(`round ${round}: ${((cpu.user + cpu.system) / 20 / 1000).toFixed(2)} ms CPU per ${((chunks * chunkBytes) / 1024 / 1024).toFixed(1)} MB body (${chunks} chunks of ${chunkBytes} bytes), wall ${((performance.now() - t0) / 20).toFixed(2)} ms`)
}
