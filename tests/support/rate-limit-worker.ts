/**
 * One "app instance" for the rate limit integration test: run as its own process with
 * REDIS_URL and the RATE_LIMIT_* variables set, it connects, prints `ready`, waits for a line
 * on stdin, spends `count` token requests at once and prints the decisions as one JSON line.
 *
 *   node --import tsx tests/support/rate-limit-worker.ts <token-id> <count>
 */
import { createInterface } from 'node:readline'
import { consumeTokenRequest, rateLimitHeaders } from '../../lib/api/rate-limit.ts'
import { closeRedis, getRedis } from '../../lib/redis.ts'

const [tokenId, count] = [process.argv[2], Number(process.argv[3])]
if (!tokenId || !Number.isInteger(count) || count < 1) {
  console.error('usage: rate-limit-worker.ts <token-id> <count>')
  process.exit(2)
}
// Nothing here may outlive a stuck test run.
setTimeout(() => process.exit(3), 20_000).unref()

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

const started = performance.now()
const decisions = await Promise.all(Array.from({ length: count }, () => consumeTokenRequest(tokenId, 'standard')))
const elapsedMs = performance.now() - started
console.log(JSON.stringify({ elapsedMs, results: decisions.map((decision) => ({ decision, headers: rateLimitHeaders(decision) })) }))
await closeRedis()
