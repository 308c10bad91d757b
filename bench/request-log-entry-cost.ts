/**
 * What recording one request costs the service's own process, measured in-process, where two
 * servers' differences (JIT decisions, memory layout) cannot drown it: `tsx
 * bench/request-log-entry-cost.ts` (DATABASE_URL set) records rounds of entries into the request
 * log and makes the same requests' ids without recording them, alternately, and prints the CPU
 * per entry that building and recording added in each round, as JSON.
 */
import { createId } from '../lib/ids.ts'
import { sqlPool } from '../lib/db/client.ts'
import { flushRequestLog, recordApiRequest } from '../lib/request-log/record-api-request.ts'
import { apiRequestEntry } from '../lib/request-log/request-log-entry.ts'

const entriesPerRound = 20_000
const rounds = 6
// Paced as a busy server records them: 500 at a time, with the event loop free in between.
const burst = 500

const tenantId = createId('ten')
const tokenId = createId('tok')

// As the bench's cached get-by-id asks: no query string, one forwarded address.
const url = new URL('http://127.0.0.1/v1/articles/art_bench')

// A request leaves some 10 KB of short-lived objects behind (its parsing, headers, answer), so
// young-generation collections run about as often as in a busy server. Each one copies every
// entry still waiting to be written: without this garbage the measurement missed that cost, and
// put recording at 2.4 us per entry where the same code with it cost about 6.
const kept = globalThis as { lastRequestGarbage?: unknown }
function leaveRequestGarbage(): void {
  const garbage: unknown[] = []
  for (let object = 0; object < 100; object++) garbage.push({ name: `field-${object}`, pair: [object, object + 1], nested: { object } })
  kept.lastRequestGarbage = garbage // reachable until the next request's, as a request's objects are until it is answered
}

// Every request gets its id whether or not it is recorded; with recording off, with-api builds no entry.
async function cpuMicroseconds(record: boolean): Promise<number> {
  const started = process.cpuUsage()
  for (let made = 0; made < entriesPerRound; made++) {
    const arrivedAt = Date.now()
    const id = createId('req', arrivedAt)
    leaveRequestGarbage()
    if (record) {
      recordApiRequest(apiRequestEntry({ id, tenantId, tokenId, method: 'GET', route: '/v1/articles/{id}', url, forwardedFor: '127.0.0.1', status: 200, problemCode: null, durationMs: 2.3, arrivedAt }))
    }
    if (made % burst === burst - 1) await new Promise((resolve) => setTimeout(resolve, 2))
  }
  if (record) await flushRequestLog()
  const used = process.cpuUsage(started)
  return used.user + used.system
}

const perEntry: number[] = []
await cpuMicroseconds(true) // warm-up: JIT and the pool's connections
for (let round = 0; round < rounds; round++) {
  // Each first in half the rounds, so neither always inherits the other's leftovers.
  const spent = new Map<boolean, number>()
  for (const record of round % 2 === 0 ? [true, false] : [false, true]) spent.set(record, await cpuMicroseconds(record))
  perEntry.push(Math.round(((spent.get(true)! - spent.get(false)!) / entriesPerRound) * 100) / 100)
}
await sqlPool.query('DELETE FROM api_request_batches WHERE tenant_id = $1', [tenantId])
await sqlPool.end()
console.log(JSON.stringify(perEntry))
