/**
 * One app instance's rate limiter for the rolling-window test, as its own process with
 * REDIS_URL and RATE_LIMIT_* set: prints `ready` once connected, then for each stdin line
 * `<count> <nowMs>` spends `count` token requests at once at that (test-driven) time and prints
 * `{ allowed, remaining[], retryAfter[] }` as one JSON line. Exits when stdin ends.
 *
 *   node --import tsx tests/support/rate-limit-instance.ts <token-id>
 */
import { createInterface } from 'node:readline'
import { consumeTokenRequest } from '../../lib/api/rate-limit.ts'
import { closeRedis, getRedis } from '../../lib/redis.ts'

const tokenId = process.argv[2]!
setTimeout(() => process.exit(3), 60_000).unref()

const redis = getRedis()
if (redis && redis.status !== 'ready') {
  await new Promise<void>((resolve, reject) => {
    redis.once('ready', resolve)
    redis.once('error', reject)
  })
}
console.log('ready')
for await (const line of createInterface({ input: process.stdin })) {
  const [count, nowMs] = line.split(' ').map(Number)
  const decisions = await Promise.all(Array.from({ length: count! }, () => consumeTokenRequest(tokenId, 'standard', nowMs)))
  const allowed = decisions.filter((decision) => decision.allowed)
  console.log(JSON.stringify({ allowed: allowed.length, remaining: allowed.map((d) => d.remaining), retryAfter: decisions.filter((d) => !d.allowed).map((d) => d.retryAfterSeconds) }))
}
await closeRedis()
