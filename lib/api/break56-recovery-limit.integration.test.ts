import { afterEach, describe, expect, it } from 'vitest'
import { consumeRecoveryCodeRegeneration, resetRateLimitersForTests } from './rate-limit.ts'
import { closeRedis } from '../redis.ts'

const savedEnv = { ...process.env }

afterEach(async () => {
  process.env = { ...savedEnv }
  resetRateLimitersForTests()
  await closeRedis()
})

describe('break56: recovery-code regenerations with Redis unreachable', () => {
  it('two tabs are allowed, the third refused in words, nothing throws, refusals do not lengthen the wait', async () => {
    process.env.REDIS_URL = 'redis://127.0.0.1:4998'
    delete process.env.RATE_LIMIT_RECOVERY_CODES_PER_MINUTE
    resetRateLimitersForTests()
    await closeRedis()
    const started = Date.now()
    const [a, b] = await Promise.all([consumeRecoveryCodeRegeneration('usr_b56'), consumeRecoveryCodeRegeneration('usr_b56')])
    expect([a.allowed, b.allowed]).toEqual([true, true])
    const third = await consumeRecoveryCodeRegeneration('usr_b56')
    expect(third.allowed).toBe(false)
    expect(third.retryAfterSeconds).toBeGreaterThan(0)
    expect(third.retryAfterSeconds).toBeLessThanOrEqual(60)
    for (let i = 0; i < 20; i++) expect((await consumeRecoveryCodeRegeneration('usr_b56')).allowed).toBe(false)
    const later = await consumeRecoveryCodeRegeneration('usr_b56')
    expect(later.retryAfterSeconds).toBeLessThanOrEqual(third.retryAfterSeconds)
    // Another member is not affected.
    expect((await consumeRecoveryCodeRegeneration('usr_other56')).allowed).toBe(true)
    expect(Date.now() - started).toBeLessThan(15_000)
  }, 30_000)
})

describe('break56: recovery-code regenerations through Redis', () => {
  it('eight at once from one member: two allowed', async () => {
    process.env.REDIS_URL = 'redis://127.0.0.1:6379'
    process.env.RATE_LIMIT_KEY_PREFIX = `break56:rl:${Date.now()}`
    delete process.env.RATE_LIMIT_RECOVERY_CODES_PER_MINUTE
    resetRateLimitersForTests()
    await closeRedis()
    const decisions = await Promise.all(Array.from({ length: 8 }, () => consumeRecoveryCodeRegeneration('usr_b56')))
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(2)
    for (const refused of decisions.filter((decision) => !decision.allowed)) expect(refused.retryAfterSeconds).toBeGreaterThan(0)
  }, 30_000)
})
