/**
 * What recording one request costs the service's own process, measured in-process, where two
 * servers' differences (JIT decisions, memory layout) cannot drown it: `tsx
 * bench/request-log-entry-cost.ts` (DATABASE_URL set) records rounds of entries into the request
 * log and builds the same entries without recording them, alternately, and prints the CPU per
 * entry that recording added in each round, as JSON.
 */
import { createId } from '../lib/ids.ts'
import { sqlPool } from '../lib/db/client.ts'
import { flushRequestLog, recordApiRequest, type ApiRequestEntry } from '../lib/request-log/record-api-request.ts'

const entriesPerRound = 20_000
const rounds = 6
// Paced as a busy server records them: 500 at a time, with the event loop free in between.
const burst = 500

const tenantId = createId('ten')
const tokenId = createId('tok')

function entryArrivingNow(): ApiRequestEntry {
  const at = Date.now()
  return { id: createId('req', at), tenantId, tokenId, method: 'GET', route: '/v1/articles/{id}', queryKeys: [], status: 200, problemCode: null, durationMs: 2, clientAddress: '127.0.0.1', createdAt: new Date(at) }
}

async function cpuMicroseconds(record: boolean): Promise<number> {
  const started = process.cpuUsage()
  for (let made = 0; made < entriesPerRound; made++) {
    const entry = entryArrivingNow()
    if (record) recordApiRequest(entry)
    if (made % burst === burst - 1) await new Promise((resolve) => setTimeout(resolve, 2))
  }
  if (record) await flushRequestLog()
  const used = process.cpuUsage(started)
  return used.user + used.system
}

const perEntry: number[] = []
await cpuMicroseconds(true) // warm-up: JIT and the pool's connections
for (let round = 0; round < rounds; round++) {
  const recorded = await cpuMicroseconds(true)
  const built = await cpuMicroseconds(false)
  perEntry.push(Math.round(((recorded - built) / entriesPerRound) * 100) / 100)
}
await sqlPool.query('DELETE FROM api_request_batches WHERE tenant_id = $1', [tenantId])
await sqlPool.end()
console.log(JSON.stringify(perEntry))
