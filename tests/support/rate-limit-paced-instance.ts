/**
 * One app instance's rate limiter for the block-reservation test (lib/api/reserved-window.ts), as
 * its own process with REDIS_URL and RATE_LIMIT_* set, on the real clock: prints `ready` once
 * connected, waits for a line on stdin, then for `<durationMs>` starts one token request every
 * `<intervalMs>` (without waiting for the last), and prints as one JSON line when each admitted
 * request was asked and answered (Date.now()), the refusals, how many reservations (Redis
 * round trips) the limiter made, how many requests it admitted from a block without one, and how
 * many it decided in memory because Redis did not answer in time.
 *
 *   node --import tsx tests/support/rate-limit-paced-instance.ts <token-id> <durationMs> <intervalMs>
 */
import { createInterface } from 'node:readline'
import { blockStats, consumeTokenRequest, type RateLimitDecision } from '../../lib/api/rate-limit.ts'
import { closeRedis, getRedis } from '../../lib/redis.ts'

const [tokenId, durationMs, intervalMs] = [process.argv[2]!, Number(process.argv[3]), Number(process.argv[4])]
setTimeout(() => process.exit(3), durationMs + 30_000).unref()

const redis = getRedis()
if (redis && redis.status !== 'ready') {
  await new Promise<void>((resolve, reject) => {
    redis.once('ready', resolve)
    redis.once('error', reject)
  })
}
const lines = createInterface({ input: process.stdin })
console.log('ready')
await new Promise((resolve) => lines.once('line', resolve))
lines.close()

// Each admitted request as [asked, answered] (Date.now()): it was admitted somewhere in between.
const admitted: [number, number][] = []
const remaining: number[] = []
let refused = 0
const pending: Promise<void>[] = []
const record = (askedAt: number, decision: RateLimitDecision) => {
  if (!decision.allowed) return void refused++
  admitted.push([askedAt, Date.now()])
  remaining.push(decision.remaining)
}
const before = blockStats()
const end = Date.now() + durationMs
while (Date.now() < end) {
  const askedAt = Date.now()
  pending.push(Promise.resolve(consumeTokenRequest(tokenId, 'standard')).then((decision) => record(askedAt, decision)))
  await new Promise((resolve) => setTimeout(resolve, intervalMs))
}
await Promise.all(pending)
const after = blockStats()
console.log(JSON.stringify({ admitted, remaining, refused, reservations: after.reservations - before.reservations, servedFromBlocks: after.servedFromBlocks - before.servedFromBlocks, localDecisions: after.localDecisions - before.localDecisions }))
await closeRedis()
