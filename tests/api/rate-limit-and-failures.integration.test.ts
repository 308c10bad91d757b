import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// A tiny limit for this file; the limiter reads it when the first request arrives.
process.env.RATE_LIMIT_STANDARD_PER_MINUTE = '5'
process.env.RATE_LIMIT_ENTERPRISE_PER_MINUTE = '8'
process.env.RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE = '3'
delete process.env.REDIS_URL

let server: Awaited<ReturnType<typeof startApiServer>>
let standard: TestTenant
let enterprise: TestTenant

beforeAll(async () => {
  const { resetRateLimitersForTests } = await import('../../lib/api/rate-limit.ts')
  resetRateLimitersForTests()
  server = await startApiServer()
  standard = await createTestTenant({ plan: 'standard' })
  enterprise = await createTestTenant({ plan: 'enterprise' })
})
afterAll(() => server.close())

describe('rate limits', () => {
  it("lets exactly the plan's limit through, counting down, then answers 429 with Retry-After", async () => {
    const client = apiClient(server.url, await standard.token(['articles:read']))
    const remaining: string[] = []
    for (let i = 0; i < 5; i++) {
      const answer = await client.get('/v1/articles?limit=1')
      expect(answer.status).toBe(200)
      expect(answer.headers.get('x-ratelimit-limit')).toBe('5')
      expect(answer.headers.get('ratelimit-policy')).toContain('q=5')
      remaining.push(answer.headers.get('x-ratelimit-remaining')!)
    }
    expect(remaining).toEqual(['4', '3', '2', '1', '0'])
    const limited = await client.get('/v1/articles?limit=1')
    expect(limited.status).toBe(429)
    expect(limited.body.code).toBe('rate_limited')
    const retryAfter = Number(limited.headers.get('retry-after'))
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(60)
  })

  it('gives enterprise tenants their larger limit', async () => {
    const client = apiClient(server.url, await enterprise.token(['articles:read']))
    const answer = await client.get('/v1/articles?limit=1')
    expect(answer.headers.get('x-ratelimit-limit')).toBe('8')
  })

  it('limits unauthenticated requests per client address, whatever X-Forwarded-For the client sends', async () => {
    const statuses: number[] = []
    for (let i = 0; i < 4; i++) {
      const answer = await apiClient(server.url, 'nrs_guessedTokenGuessedTokenGuessedTokenGuessedTok').get('/v1/articles', { 'X-Forwarded-For': `203.0.113.${i}` })
      statuses.push(answer.status)
    }
    expect(statuses).toEqual([401, 401, 401, 429])
  })
})

describe('a failure inside the service', () => {
  it('answers 500 internal_error without internals', async () => {
    const client = apiClient(server.url, await enterprise.token(['articles:read', 'articles:write']))
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL })
    await admin.connect()
    await admin.query('ALTER TABLE articles RENAME COLUMN lede TO lede_renamed_by_test')
    try {
      const answer = await client.post('/v1/articles', { headline: 'Breaks on a broken schema', lede: 'x' })
      expect(answer.status).toBe(500)
      expect(answer.body.code).toBe('internal_error')
      expect(answer.body.detail).toContain(answer.body.request_id)
      expect(answer.text).not.toMatch(/lede|prisma|column|select|insert|at .*\.ts/i)
    } finally {
      await admin.query('ALTER TABLE articles RENAME COLUMN lede_renamed_by_test TO lede')
      await admin.end()
    }
  })
})
