import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { db } from '../../lib/db/client.ts'
import type { Role } from '../../lib/db/generated/enums.ts'
import { createCallerFactory, type PortalContext } from '../../lib/trpc/init.ts'
import { appRouter } from '../../lib/trpc/routers/app-router.ts'
import { createDeliveriesForEvent } from '../../lib/webhooks/create-deliveries.ts'
import { deliverAttempt } from '../../lib/webhooks/deliver-attempt.ts'
import { createWebhook } from '../../lib/webhooks/manage-subscriptions.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { startFakeInngest } from '../support/fake-inngest.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { stubEnv } from '../support/stub-env.ts'

// The contract: body is sanitised on write. A hostile body sent through every write path is
// stored clean, read back clean, and reaches a webhook receiver clean; the writer is told
// what was removed, in the order it appeared.

const hostile =
  '<p onclick="steal()">Council <em>votes</em></p><script>alert(1)</script>' +
  '<img src=x onerror=alert(2)><a href="javascript:alert(3)">more</a><iframe src="https://evil.example"></iframe>'
const clean = '<p>Council <em>votes</em></p><a>more</a>'

const createCaller = createCallerFactory(appRouter)
let server: Awaited<ReturnType<typeof startApiServer>>
let inngest: Awaited<ReturnType<typeof startFakeInngest>>
let receiver: Server
const received: any[] = []
let newsroom: TestTenant
let client: ReturnType<typeof apiClient>

function portal(role: Role) {
  const { tenant } = newsroom
  const context: PortalContext = {
    member: { id: newsroom.users[role].id, email: newsroom.users[role].email, name: role, role, tenantId: tenant.id, tenantName: tenant.name },
    tenant: { id: tenant.id, slug: tenant.slug, name: tenant.name, plan: tenant.plan, publicSiteUrl: tenant.publicSiteUrl },
  }
  return createCaller(context)
}

/** Delivers the article's latest event to the local receiver and answers the body it got. */
async function deliveredBody(articleId: string): Promise<string> {
  const event = await db.event.findFirstOrThrow({ where: { tenantId: newsroom.tenant.id, data: { path: ['article_id'], equals: articleId } }, orderBy: { occurredAt: 'desc' } })
  const [planned] = await createDeliveriesForEvent(event.id)
  const outcome = await deliverAttempt(planned!.deliveryId, { kind: 'manual' })
  expect(outcome).toMatchObject({ result: 'succeeded' })
  const envelope = received.find((body) => body.event_id === event.id)
  expect(envelope.data.article_id).toBe(articleId)
  return envelope.data.body
}

beforeAll(async () => {
  inngest = await startFakeInngest()
  stubEnv({ INNGEST_DEV: inngest.url, WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_SECRET_KEY: 'sanitised-body-test-key' })
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')))
      res.writeHead(200).end()
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  server = await startApiServer()
  newsroom = await createTestTenant()
  client = apiClient(server.url, await newsroom.token(['articles:read', 'articles:write']))
  await createWebhook(newsroom.actor('admin'), {
    url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`,
    events: ['article.created', 'article.updated'],
    secret: 'receiver-secret-0123456789abcdef',
  })
})

afterAll(async () => {
  await server?.close()
  await inngest?.stop()
  await new Promise((resolve) => { receiver?.closeAllConnections(); receiver?.close(resolve) })
  vi.unstubAllEnvs()
})

async function expectStoredClean(articleId: string) {
  const read = await client.get(`/v1/articles/${articleId}`)
  expect(read.body.body).toBe(clean)
  expect(await deliveredBody(articleId)).toBe(clean)
}

const removedList = ['onclick attribute', '<script>', '<img>', 'javascript: URL in href', '<iframe>']

describe('a hostile body is sanitised on every write path', () => {
  it('POST /v1/articles answers the stored body and a Warning naming what was removed', async () => {
    const created = await client.post('/v1/articles', { headline: 'Hostile create', body: hostile })
    expect(created.status).toBe(201)
    expect(created.body.body).toBe(clean)
    const warning = created.headers.get('warning')!
    expect(warning).toMatch(/^299 - "body sanitised: removed /)
    for (const removed of removedList) expect(warning).toContain(removed)
    await expectStoredClean(created.body.article_id)
  })

  it('PATCH /v1/articles/{id} likewise; a clean body gets no Warning', async () => {
    const created = await client.post('/v1/articles', { headline: 'Patched later', body: '<p>Fine</p>' })
    expect(created.headers.get('warning')).toBeNull()
    const patched = await client.patch(`/v1/articles/${created.body.article_id}`, { body: hostile })
    expect(patched.status).toBe(200)
    expect(patched.body.body).toBe(clean)
    expect(patched.headers.get('warning')).toContain('<script>')
    await expectStoredClean(created.body.article_id)
  })

  it('bulk import, for created and updated items, reports body_removed per item', async () => {
    const first = await client.post('/v1/articles/bulk', { articles: [{ external_id: 'W-1', headline: 'Wire', body: hostile }, { external_id: 'W-2', headline: 'Wire 2', body: '<p>ok</p>' }] })
    expect(first.body.results[0]).toMatchObject({ status: 'created', body_removed: removedList })
    expect(first.body.results[1].body_removed).toBeUndefined()
    await expectStoredClean(first.body.results[0].article_id)

    const again = await client.post('/v1/articles/bulk', { articles: [{ external_id: 'W-2', headline: 'Wire 2 updated', body: hostile }] })
    expect(again.body.results[0]).toMatchObject({ status: 'updated', body_removed: removedList })
    await expectStoredClean(again.body.results[0].article_id)
  })

  it('the portal (tRPC create and save) stores the clean body and tells the editor what went', async () => {
    const created = await portal('editor').articles.create({ headline: 'Portal hostile', body: hostile })
    expect(created).toMatchObject({ body: clean, body_removed: removedList })
    await expectStoredClean(created.article_id)

    const saved = await portal('editor').articles.update({ article_id: created.article_id, version: created.version, changes: { body: `${hostile}<p>more</p>` } })
    expect(saved).toMatchObject({ body: `${clean}<p>more</p>`, body_removed: removedList })
    const none = await portal('editor').articles.update({ article_id: created.article_id, version: saved.version, changes: { headline: 'Only the headline' } })
    expect(none.body_removed).toEqual([])
  })

  it('null and absent bodies are left as they are', async () => {
    const created = await client.post('/v1/articles', { headline: 'No body' })
    expect(created.body.body).toBeNull()
    const cleared = await client.patch(`/v1/articles/${created.body.article_id}`, { body: null })
    expect(cleared.body.body).toBeNull()
    expect(cleared.headers.get('warning')).toBeNull()
  })
})
