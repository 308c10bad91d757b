import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { GET as scrapeMetrics } from '../../app/metrics/route.ts'
import { accessLog } from '../../lib/ops/access-log.ts'
import { sendTestEvent } from '../../lib/webhooks/manual-deliveries.ts'
import { createWebhook } from '../../lib/webhooks/manage-subscriptions.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { stubEnv } from '../support/stub-env.ts'

// What an operator sees of /v1 traffic: Prometheus counters that move with requests and
// refusals, and one structured log line per request that never carries a secret.

let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant

beforeAll(async () => {
  stubEnv({ METRICS_TOKEN: 'scrape-me-please', RATE_LIMIT_STANDARD_PER_MINUTE: '3', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' })
  server = await startApiServer()
  newsroom = await createTestTenant()
})

afterAll(async () => {
  await server.close()
  vi.unstubAllEnvs()
  vi.restoreAllMocks()
})

async function scrape(): Promise<string> {
  const response = await scrapeMetrics(new Request('http://localhost/metrics', { headers: { Authorization: 'Bearer scrape-me-please' } }))
  expect(response.status).toBe(200)
  return response.text()
}

function sample(text: string, name: string, labels: Record<string, string>): number {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`)
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${name}{`) && wanted.every((label) => candidate.includes(label)))
  return line ? Number(line.split(' ').at(-1)) : 0
}

describe('metrics and request logs', () => {
  it('refuses a scrape without the metrics token', async () => {
    expect((await scrapeMetrics(new Request('http://localhost/metrics'))).status).toBe(401)
    expect((await scrapeMetrics(new Request('http://localhost/metrics', { headers: { Authorization: 'Bearer wrong' } }))).status).toBe(401)
  })

  it('counts requests by route template and status, and rate-limit refusals', async () => {
    const before = await scrape()
    const client = apiClient(server.url, await newsroom.token(['articles:read']))
    const statuses = []
    for (let i = 0; i < 4; i++) statuses.push((await client.get('/v1/articles/art_doesnotexist')).status)
    expect(statuses).toEqual([404, 404, 404, 429])
    expect((await apiClient(server.url, 'nrs_not_a_real_token').get('/v1/articles')).status).toBe(401)

    const after = await scrape()
    const route = { route: '/v1/articles/{id}', method: 'GET' }
    expect(sample(after, 'newsroom_api_requests_total', { ...route, status: '404' }) - sample(before, 'newsroom_api_requests_total', { ...route, status: '404' })).toBe(3)
    expect(sample(after, 'newsroom_api_requests_total', { ...route, status: '429' }) - sample(before, 'newsroom_api_requests_total', { ...route, status: '429' })).toBe(1)
    expect(sample(after, 'newsroom_api_requests_total', { route: '/v1/articles', method: 'GET', status: '401' })).toBeGreaterThanOrEqual(1)
    expect(sample(after, 'newsroom_rate_limit_rejections_total', { caller: 'token' }) - sample(before, 'newsroom_rate_limit_rejections_total', { caller: 'token' })).toBe(1)
    expect(sample(after, 'newsroom_api_request_duration_seconds_count', route) - sample(before, 'newsroom_api_request_duration_seconds_count', route)).toBe(4)
    expect(after).toMatch(/^newsroom_outbox_waiting_events \d+/m)
    expect(after).toMatch(/^newsroom_db_pool_connections\{state="in_use"\} \d+/m)
  })

  it('labels a request by its route, whatever text the caller put in the path', async () => {
    const before = await scrape()
    const client = apiClient(server.url, await newsroom.token(['articles:read']))
    for (const path of ['/v1/articles/not-an-id-1', '/v1/articles/12345']) expect((await client.get(path)).status).toBe(404)

    const after = await scrape()
    const route = { route: '/v1/articles/{id}', method: 'GET', status: '404' }
    expect(sample(after, 'newsroom_api_requests_total', route) - sample(before, 'newsroom_api_requests_total', route)).toBe(2)
    // Each path as a label would be a new time series per request: memory a caller could grow at will.
    expect(after).not.toContain('not-an-id-1')
    expect(after).not.toContain('/v1/articles/12345')
  })

  it('counts webhook attempts by outcome', async () => {
    const receiver = createServer((request, response) => {
      request.resume()
      response.writeHead(request.url === '/fails' ? 503 : 204).end()
    })
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
    const base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`
    try {
      const admin = newsroom.actor('admin')
      const ok = await createWebhook(admin, { url: `${base}/ok`, events: ['article.created'], secret: 'a-long-enough-secret-1' })
      const failing = await createWebhook(admin, { url: `${base}/fails`, events: ['article.created'], secret: 'a-long-enough-secret-2' })
      const before = await scrape()
      await sendTestEvent(admin, ok.id)
      await sendTestEvent(admin, failing.id)
      const after = await scrape()
      for (const outcome of ['succeeded', '5xx']) {
        expect(sample(after, 'newsroom_webhook_attempts_total', { outcome }) - sample(before, 'newsroom_webhook_attempts_total', { outcome }), outcome).toBe(1)
      }
    } finally {
      await new Promise((resolve) => receiver.close(resolve))
    }
  })

  it('logs one line per request with ids, route, status and problem code, never the query string', async () => {
    const lines: Record<string, unknown>[] = []
    // What the operator's log receives: each appended text is one JSON line (lib/ops/access-log.ts).
    vi.spyOn(accessLog, 'enabled').mockReturnValue(true)
    const spy = vi.spyOn(accessLog, 'append').mockImplementation((text: string) => void lines.push(JSON.parse(text) as Record<string, unknown>))
    try {
      const token = await newsroom.token(['articles:read'])
      const answer = await apiClient(server.url, token).get(`/v1/articles?access_token=${token}&status=bogus`)
      expect(answer.status).toBe(422)
      await vi.waitFor(() => expect(lines.find((line) => line.request_id === answer.headers.get('x-request-id'))).toBeDefined())
      const line = lines.find((entry) => entry.request_id === answer.headers.get('x-request-id'))!
      expect(line).toMatchObject({ level: 30, msg: 'api request', time: expect.any(Number), tenant_id: newsroom.tenant.id, token_id: expect.stringMatching(/^tok_/), method: 'GET', route: '/v1/articles', status: 422, problem: 'validation_failed' })
      expect(line.duration_ms).toEqual(expect.any(Number))
      expect(JSON.stringify(lines)).not.toContain(token)
    } finally {
      spy.mockRestore()
      vi.mocked(accessLog.enabled).mockRestore()
    }
  })
})
