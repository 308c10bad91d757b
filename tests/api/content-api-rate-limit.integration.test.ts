import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { resetRateLimitersForTests } from '../../lib/api/rate-limit.ts'
import { createContentKey } from '../../lib/content/content-keys.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant } from '../support/fixtures.ts'
import { stubEnv } from '../support/stub-env.ts'

// The public content API spends a budget per content key (what a shared cache did not answer),
// so one site's storm of misses cannot starve another's; guesses spend the address's budget.
let server: { url: string; close: () => Promise<void> }
let first: string
let second: string

beforeAll(async () => {
  stubEnv({ RATE_LIMIT_CONTENT_PER_MINUTE: '5', RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: '3', RATE_LIMIT_KEY_PREFIX: `newsroom:rl:content-test:${Date.now()}:${Math.random()}` })
  resetRateLimitersForTests()
  const newsroom = await createTestTenant()
  first = (await createContentKey(newsroom.actor('admin'), 'First site')).key
  second = (await createContentKey(newsroom.actor('admin'), 'Second site')).key
  server = await startApiServer()
})

afterAll(async () => {
  await server.close()
  vi.unstubAllEnvs()
  resetRateLimitersForTests()
})

describe('content API rate limit', () => {
  it('refuses a key past its budget with 429, Retry-After and no-store, while another key goes on', async () => {
    const site = apiClient(server.url)
    const answers = []
    for (let i = 0; i < 6; i++) answers.push(await site.get(`/content/v1/articles?key=${first}`))
    expect(answers.slice(0, 5).map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200])
    const refused = answers[5]!
    expect(refused.status).toBe(429)
    expect(refused.body.code).toBe('rate_limited')
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    // A shared cache must not keep the refusal and serve it to every reader.
    expect(refused.headers.get('cache-control')).toBe('no-store')
    expect(refused.headers.get('ratelimit-policy')).toBe('"per-content-key";q=5;w=60')

    expect((await site.get('/content/v1/articles', { 'X-Content-Key': second })).status).toBe(200)
  })

  it('counts unknown keys against the address', async () => {
    const site = apiClient(server.url)
    const statuses = []
    for (let i = 0; i < 4; i++) statuses.push((await site.get(`/content/v1/articles?key=nrc_${'g'.repeat(40)}${i}`)).status)
    expect(statuses).toEqual([401, 401, 401, 429])
  })
})
