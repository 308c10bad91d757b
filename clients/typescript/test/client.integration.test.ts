import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startApiServer } from '../../../tests/support/api-server.ts'
import { createTestTenant, type TestTenant } from '../../../tests/support/fixtures.ts'
import { stubEnv } from '../../../tests/support/stub-env.ts'
import { startWebhookReceiver } from '../../../tests/support/webhook-receiver.ts'
import { createContentClient, createNewsroomClient, pagesByCursor, pagesByOffset, syncFeed, unwrap, verifyServiceSignature, verifyWebhook, type NewsroomClient } from '../src/index.ts'

// The typed client against the real /v1 handlers on 127.0.0.1: what a newcomer does first.

let server: Awaited<ReturnType<typeof startApiServer>>
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>
let newsroom: TestTenant
let token: string
let client: NewsroomClient

beforeAll(async () => {
  stubEnv({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_SECRET_KEY: 'client-test-key', SMTP_URL: undefined, SYNC_SETTLE_MS: '0' })
  ;[server, receiver, newsroom] = await Promise.all([startApiServer(), startWebhookReceiver(), createTestTenant()])
  token = await newsroom.token(['articles:read', 'articles:write', 'webhooks:manage', 'events:read'])
  client = createNewsroomClient({ baseUrl: server.url, token })
})

afterAll(async () => {
  await Promise.all([server.close(), receiver.close()])
  vi.unstubAllEnvs()
})

/** A fetch that records what was sent and answered, passing everything on to the server. */
function recordingFetch() {
  const seen: { method: string; url: string; headers: Headers; status: number; etag: string | null }[] = []
  return {
    seen,
    fetch: async (request: Request) => {
      const response = await fetch(request)
      seen.push({ method: request.method, url: request.url, headers: request.headers, status: response.status, etag: response.headers.get('etag') })
      return response
    },
  }
}

describe('typed calls', () => {
  it('lists, creates and publishes an article, typed from the OpenAPI document', async () => {
    const created = unwrap(await client.POST('/v1/articles', { body: { headline: 'Harbour festival returns', status: 'in-review', tags: ['local'] } }))
    expect(created).toMatchObject({ headline: 'Harbour festival returns', status: 'in-review' })
    unwrap(await client.POST('/v1/articles/{article_id}/transitions', { params: { path: { article_id: created.article_id } }, body: { to_state: 'approved' } }))
    const published = unwrap(await client.POST('/v1/articles/{article_id}/transitions', { params: { path: { article_id: created.article_id } }, body: { to_state: 'published' } }))
    expect(published).toMatchObject({ status: 'published', url: expect.stringContaining('https://') })
    const page = unwrap(await client.GET('/v1/articles', { params: { query: { status: 'published' } } }))
    expect(page.items.map((article) => article.article_id)).toContain(created.article_id)
  })

  it('answers a problem as error, and unwrap throws it with its detail', async () => {
    const answer = await client.GET('/v1/articles/{article_id}', { params: { path: { article_id: 'art_missing' } } })
    expect(answer.response.status).toBe(404)
    expect(answer.error).toMatchObject({ code: 'not_found' })
    expect(() => unwrap(answer)).toThrow(/art_missing/)
  })
})

describe('the content API client', () => {
  it('reads published articles with a content key, typed from the content API document, and never a draft', async () => {
    const { createContentKey } = await import('../../../lib/content/content-keys.ts')
    const { key } = await createContentKey(newsroom.actor('admin'), 'Client test site')
    const draft = unwrap(await client.POST('/v1/articles', { body: { headline: 'Lighthouse draft' } }))
    const live = unwrap(await client.POST('/v1/articles', { body: { headline: 'Lighthouse reopens to visitors', status: 'in-review' } }))
    unwrap(await client.POST('/v1/articles/{article_id}/transitions', { params: { path: { article_id: live.article_id } }, body: { to_state: 'approved' } }))
    unwrap(await client.POST('/v1/articles/{article_id}/transitions', { params: { path: { article_id: live.article_id } }, body: { to_state: 'published' } }))

    const site = createContentClient({ baseUrl: server.url, contentKey: key })
    const page = unwrap(await site.GET('/content/v1/articles', { params: { query: { q: 'lighthouse' } } }))
    expect(page.items.map((article) => article.article_id)).toEqual([live.article_id])
    const one = unwrap(await site.GET('/content/v1/articles/{article}', { params: { path: { article: live.slug } } }))
    expect(one).toMatchObject({ article_id: live.article_id, headline: 'Lighthouse reopens to visitors' })
    expect(one).not.toHaveProperty('status')
    const hidden = await site.GET('/content/v1/articles/{article}', { params: { path: { article: draft.article_id } } })
    expect(hidden.response.status).toBe(404)
    expect(hidden.error).toMatchObject({ code: 'not_found' })

    const stranger = createContentClient({ baseUrl: server.url, contentKey: `nrc_${'x'.repeat(40)}`, retries: 0 })
    expect((await stranger.GET('/content/v1/articles')).error).toMatchObject({ status: 401, code: 'unauthenticated' })
  })
})

describe('paging', () => {
  it('walks an offset list and a cursor list to the end, each item once', async () => {
    const other = await createTestTenant()
    const own = createNewsroomClient({ baseUrl: server.url, token: await other.token(['articles:read', 'articles:write', 'events:read']) })
    const ids: string[] = []
    for (let i = 0; i < 5; i++) ids.push(unwrap(await own.POST('/v1/articles', { body: { headline: `Story ${i}` } })).article_id)
    const byOffset: string[] = []
    for await (const article of pagesByOffset((paging) => own.GET('/v1/articles', { params: { query: { limit: 2, ...paging } } }))) byOffset.push(article.article_id)
    expect(byOffset.sort()).toEqual([...ids].sort())
    const events: string[] = []
    for await (const event of pagesByCursor((paging) => own.GET('/v1/events', { params: { query: { limit: 2, type: 'article.created', ...paging } } }))) events.push(event.event_id)
    expect(events).toHaveLength(5)
    expect(new Set(events).size).toBe(5)
  })

  it('syncs the events feed from a kept cursor: the second sync brings only what happened since', async () => {
    const other = await createTestTenant()
    const own = createNewsroomClient({ baseUrl: server.url, token: await other.token(['articles:write', 'events:read']) })
    unwrap(await own.POST('/v1/articles', { body: { headline: 'First' } }))
    const feed = (paging: { cursor?: string }) => own.GET('/v1/events', { params: { query: { sort: 'created_at', limit: 1, ...paging } } })
    const first: string[] = []
    const kept = await syncFeed(feed, undefined, (event) => void first.push(event.event))
    expect(first).toEqual(['article.created'])
    expect(kept).toEqual(expect.any(String))
    unwrap(await own.POST('/v1/articles', { body: { headline: 'Second' } }))
    const second: unknown[] = []
    const next = await syncFeed(feed, kept, (event) => void second.push(event.data))
    expect(second).toEqual([expect.objectContaining({ headline: 'Second' })])
    expect(await syncFeed(feed, next, () => expect.fail('nothing new'))).toBe(next)
  })
})

describe('retries', () => {
  it('sends a create again after a lost answer under one Idempotency-Key, so it runs once', async () => {
    const other = await createTestTenant()
    const otherToken = await other.token(['articles:read', 'articles:write'])
    const keys: string[] = []
    let lost = false
    const own = createNewsroomClient({
      baseUrl: server.url,
      token: otherToken,
      sleep: async () => {},
      fetch: async (request) => {
        if (request.method === 'POST') keys.push(request.headers.get('Idempotency-Key') ?? '')
        const response = await fetch(request)
        // The server did the work; the answer is lost on the way back.
        if (request.method === 'POST' && !lost) {
          lost = true
          throw new TypeError('fetch failed: connection reset')
        }
        return response
      },
    })
    const created = unwrap(await own.POST('/v1/articles', { body: { headline: 'Sent twice, made once' } }))
    expect(keys).toHaveLength(2)
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/)
    expect(keys[1]).toBe(keys[0])
    const list = unwrap(await own.GET('/v1/articles'))
    expect(list.items.filter((article) => article.headline === 'Sent twice, made once').map((article) => article.article_id)).toEqual([created.article_id])
  })

  it('waits as long as Retry-After says, and gives up after the retries allowed', async () => {
    const waits: number[] = []
    let calls = 0
    const limited = createNewsroomClient({
      baseUrl: server.url,
      token,
      retries: 2,
      sleep: async (ms) => void waits.push(ms),
      fetch: async (request) => {
        calls++
        if (calls <= 2) return new Response(JSON.stringify({ code: 'rate_limited' }), { status: 429, headers: { 'Retry-After': String(calls * 3), 'Content-Type': 'application/problem+json' } })
        return fetch(request)
      },
    })
    expect((await limited.GET('/v1/articles')).response.status).toBe(200)
    expect(waits).toEqual([3_000, 6_000])

    calls = 0
    waits.length = 0
    const always = createNewsroomClient({ baseUrl: server.url, token, retries: 2, sleep: async (ms) => void waits.push(ms), fetch: async () => new Response(null, { status: 429, headers: { 'Retry-After': '1' } }) })
    expect((await always.GET('/v1/articles')).response.status).toBe(429)
    expect(waits).toEqual([1_000, 1_000])
  })
})

describe('ETag revalidation', () => {
  it('asks again with If-None-Match and answers an unchanged article from its copy; a change is fetched anew', async () => {
    const recorder = recordingFetch()
    const own = createNewsroomClient({ baseUrl: server.url, token, fetch: recorder.fetch })
    const created = unwrap(await own.POST('/v1/articles', { body: { headline: 'Cached' } }))
    const get = () => own.GET('/v1/articles/{article_id}', { params: { path: { article_id: created.article_id } } })
    const first = unwrap(await get())
    const etag = recorder.seen.at(-1)!.etag
    expect(etag).toMatch(/^"/)
    const second = await get()
    expect(recorder.seen.at(-1)).toMatchObject({ status: 304 })
    expect(recorder.seen.at(-1)!.headers.get('if-none-match')).toBe(etag)
    expect(second.response.status).toBe(200)
    expect(second.data).toEqual(first)
    unwrap(await own.PATCH('/v1/articles/{article_id}', { params: { path: { article_id: created.article_id } }, body: { headline: 'Changed' } }))
    const third = unwrap(await get())
    expect(recorder.seen.at(-1)).toMatchObject({ status: 200 })
    expect(third.headline).toBe('Changed')
  })
})

describe('webhook verification', () => {
  it('verifies a real delivery with standardwebhooks and X-Service-Signature, and refuses a tampered one', async () => {
    const secret = 'client-test-secret-0001'
    const webhook = unwrap(await client.POST('/v1/webhooks', { body: { url: receiver.url, events: ['article.published'], secret } }))
    unwrap(await client.POST('/v1/webhooks/{webhook_id}/test', { params: { path: { webhook_id: webhook.webhook_id } } }))
    const delivered = receiver.requests.at(-1)!
    expect(verifyWebhook<{ event: string }>(delivered.body, delivered.headers, secret)).toMatchObject({ event: 'webhook.test' })
    expect(verifyServiceSignature(delivered.body, String(delivered.headers['x-service-signature']), secret)).toBe(true)
    const tampered = delivered.body.replace('webhook.test', 'webhook.tset')
    expect(() => verifyWebhook(tampered, delivered.headers, secret)).toThrow()
    expect(verifyServiceSignature(tampered, String(delivered.headers['x-service-signature']), secret)).toBe(false)
    expect(verifyServiceSignature(delivered.body, String(delivered.headers['x-service-signature']), 'another-secret-00001')).toBe(false)
  })
})

describe('the integrators\' guide example', () => {
  it('runs as docs/integrators.md shows it: lists, creates and publishes, and verifies a real delivery', async () => {
    const { readFileSync } = await import('node:fs')
    const source = readFileSync(new URL('../examples/list-create-publish-verify.ts', import.meta.url), 'utf8')
    const guide = readFileSync(new URL('../../../docs/integrators.md', import.meta.url), 'utf8')
    expect(guide).toContain(source.replace("from '../src/index.ts'", "from './clients/typescript/src/index.ts'"))
    const secret = 'readme-example-secret-01'
    stubEnv({ NEWSROOM_URL: server.url, NEWSROOM_TOKEN: token, WEBHOOK_SECRET: secret })
    const subscription = unwrap(await client.POST('/v1/webhooks', { body: { url: receiver.url, events: ['article.published'], secret } }))
    const example = await import('../examples/list-create-publish-verify.ts')
    expect(Array.isArray(example.items)).toBe(true)
    const stored = unwrap(await client.GET('/v1/articles/{article_id}', { params: { path: { article_id: example.article.article_id } } }))
    expect(stored.status).toBe('published')
    // The subscription's delivery of that publication, made here as the queue would make it.
    const { db } = await import('../../../lib/db/client.ts')
    const { createDeliveriesForEvent } = await import('../../../lib/webhooks/create-deliveries.ts')
    const { deliverAttempt } = await import('../../../lib/webhooks/deliver-attempt.ts')
    const event = await db.event.findFirstOrThrow({ where: { tenantId: newsroom.tenant.id, kind: 'article.published' }, orderBy: { occurredAt: 'desc' } })
    const planned = (await createDeliveriesForEvent(event.id)).find((delivery) => delivery.subscriptionId === subscription.webhook_id)
    await deliverAttempt(planned!.deliveryId, { kind: 'manual' })
    const delivered = receiver.requests.at(-1)!
    const headers = new Headers(Object.entries(delivered.headers).map(([name, value]) => [name, String(value)] as [string, string]))
    expect(example.verify(delivered.body, headers)).toMatchObject({ event: 'article.published', data: { article_id: example.article.article_id } })
    expect(() => example.verify(delivered.body.replace('Harbour', 'Harb0ur'), headers)).toThrow()
  })
})
