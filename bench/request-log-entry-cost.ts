/**
 * What recording one request costs the service's own process, measured in-process, where two
 * servers' differences (JIT decisions, memory layout) cannot drown it: `tsx
 * bench/request-log-entry-cost.ts` (DATABASE_URL set) records rounds of entries into the request
 * log and makes the same requests' ids without recording them, alternately, and prints the CPU
 * per entry that building and recording added in each round, as JSON: through the entry object
 * (recordApiRequest(apiRequestEntry(...))) and straight from the answered request, as with-api does.
 */
import { createId } from '../lib/ids.ts'
import { sqlPool } from '../lib/db/client.ts'
import { flushRequestLog, recordAnsweredRequest, recordApiRequest } from '../lib/request-log/record-api-request.ts'
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
// 'entry' builds the entry object and records it (recordApiRequest), 'answered' records the
// answered request straight to its stored text, as with-api does (recordAnsweredRequest).
type Way = 'none' | 'entry' | 'answered'
async function cpuMicroseconds(way: Way): Promise<number> {
  const record = way !== 'none'
  const started = process.cpuUsage()
  for (let made = 0; made < entriesPerRound; made++) {
    const arrivedAt = Date.now()
    const id = createId('req', arrivedAt)
    leaveRequestGarbage()
    const answered = { id, tenantId, tokenId, method: 'GET', route: '/v1/articles/{id}', url, forwardedFor: '127.0.0.1', status: 200, problemCode: null, durationMs: 2.3, arrivedAt }
    if (way === 'entry') recordApiRequest(apiRequestEntry(answered))
    else if (way === 'answered') recordAnsweredRequest(answered)
    if (made % burst === burst - 1) await new Promise((resolve) => setTimeout(resolve, 2))
  }
  if (record) await flushRequestLog()
  const used = process.cpuUsage(started)
  return used.user + used.system
}

const perEntry: Record<'entry' | 'answered', number[]> = { entry: [], answered: [] }
await cpuMicroseconds('entry') // warm-up: JIT and the pool's connections
await cpuMicroseconds('answered')
for (let round = 0; round < rounds; round++) {
  // In a different order each round, so none always inherits another's leftovers.
  const ways: Way[] = [['none', 'entry', 'answered'], ['entry', 'answered', 'none'], ['answered', 'none', 'entry']][round % 3] as Way[]
  const spent = new Map<Way, number>()
  for (const way of ways) spent.set(way, await cpuMicroseconds(way))
  for (const way of ['entry', 'answered'] as const) perEntry[way].push(Math.round(((spent.get(way)! - spent.get('none')!) / entriesPerRound) * 100) / 100)
}
await sqlPool.query('DELETE FROM api_request_batches WHERE tenant_id = $1', [tenantId])
await sqlPool.end()
console.log(JSON.stringify(perEntry))
