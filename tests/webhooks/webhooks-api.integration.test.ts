import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { db } from '../../lib/db/client.ts'
import { createId } from '../../lib/ids.ts'
import { decryptSecret } from '../../lib/security/secret-box.ts'
import { setHostResolver } from '../../lib/webhooks/url-safety.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { stubEnv } from '../support/stub-env.ts'

// /v1/webhooks over real HTTP. Private addresses are NOT allowed here (no
// WEBHOOK_ALLOW_PRIVATE_URLS), and DNS answers come from a stand-in resolver, so public
// receiver names work without network access.

const secret = 'my-signing-secret-0123456789'
let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let other: TestTenant
let manageToken: string

const publicAddress = { address: '93.184.216.34', family: 4 as const }

beforeAll(async () => {
  stubEnv({ WEBHOOK_ALLOW_PRIVATE_URLS: undefined, WEBHOOK_SECRET_KEY: 'api-test-key' })
  setHostResolver(async (host) => {
    if (host === 'localhost') return [{ address: '127.0.0.1', family: 4 }, { address: '::1', family: 6 }]
    if (host === 'internal.example') return [{ address: '10.20.30.40', family: 4 }]
    if (host === 'rebind.example') return [publicAddress, { address: '127.0.0.1', family: 4 }]
    if (host.endsWith('.example') || host.endsWith('.example.com')) return [publicAddress]
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' })
  })
  server = await startApiServer()
  newsroom = await createTestTenant()
  other = await createTestTenant()
  manageToken = await newsroom.token(['webhooks:manage'])
})

afterAll(async () => {
  setHostResolver(undefined)
  await server.close()
  vi.unstubAllEnvs()
})

function expectProblem(answer: { status: number; headers: Headers; body: any }, status: number, code: string) {
  expect(answer.status).toBe(status)
  expect(answer.headers.get('content-type')).toBe('application/problem+json')
  expect(answer.body).toMatchObject({ status, code })
}

function fieldsOf(answer: { body: any }): string[] {
  return (answer.body.errors as { field: string }[]).map((error) => error.field).sort()
}

describe('/v1/webhooks', () => {
  it('creates a subscription: 201, Location, the record without the secret, owned by the token owner, audited', async () => {
    const client = apiClient(server.url, manageToken)
    const answer = await client.post('/v1/webhooks', { url: 'https://hooks.example.com/newsroom', events: ['article.published', 'article.published', 'workflow.transitioned'], secret })

    expect(answer.status).toBe(201)
    expect(answer.headers.get('location')).toBe(`/v1/webhooks/${answer.body.webhook_id}`)
    expect(answer.headers.get('x-request-id')).toMatch(/^req_/)
    expect(Object.keys(answer.body).sort()).toEqual(['created_at', 'department_ids', 'disabled_at', 'disabled_reason', 'events', 'previous_secret_expires_at', 'status', 'statuses', 'tags', 'updated_at', 'url', 'webhook_id'])
    expect(answer.body).toMatchObject({
      webhook_id: expect.stringMatching(/^whk_/),
      url: 'https://hooks.example.com/newsroom',
      events: ['article.published', 'workflow.transitioned'],
      status: 'enabled',
      disabled_at: null,
      disabled_reason: null,
    })
    expect(answer.text).not.toContain(secret)

    const row = await db.webhookSubscription.findUniqueOrThrow({ where: { id: answer.body.webhook_id } })
    expect(row.ownerId).toBe(newsroom.users.admin.id)
    expect(row.secretEncrypted).not.toContain(secret)
    expect(decryptSecret(row.secretEncrypted)).toBe(secret)
    const audit = await db.auditEntry.findFirstOrThrow({ where: { targetId: row.id, action: 'webhook.created' } })
    expect(audit).toMatchObject({ tenantId: newsroom.tenant.id, actorId: newsroom.users.admin.id, targetType: 'webhook' })
    expect(JSON.stringify(audit.metadata)).not.toContain(secret)
  })

  it('refuses invalid bodies with 422 and a field error for each problem', async () => {
    const client = apiClient(server.url, manageToken)
    const everything = await client.post('/v1/webhooks', { url: 'not a url', events: [], secret: 'short', colour: 'blue' })
    expectProblem(everything, 422, 'validation_failed')
    expect(fieldsOf(everything)).toEqual(['colour', 'events', 'secret', 'url'])

    const missing = await client.post('/v1/webhooks', {})
    expectProblem(missing, 422, 'validation_failed')
    expect(fieldsOf(missing)).toEqual(['events', 'secret', 'url'])

    const unknownKind = await client.post('/v1/webhooks', { url: 'https://hooks.example.com/x', events: ['article.published', 'article.deleted'], secret })
    expectProblem(unknownKind, 422, 'validation_failed')
    expect(unknownKind.body.errors).toEqual([{ field: 'events.1', message: expect.stringContaining("Unknown event kind 'article.deleted'") }])

    const internalKind = await client.post('/v1/webhooks', { url: 'https://hooks.example.com/x', events: ['article.publish_scheduled'], secret })
    expect(fieldsOf(internalKind)).toEqual(['events.0'])

    const longSecret = await client.post('/v1/webhooks', { url: 'https://hooks.example.com/x', events: ['article.published'], secret: 'x'.repeat(513) })
    expect(longSecret.body.errors).toEqual([{ field: 'secret', message: 'secret must have 16 to 512 characters.' }])
    expect((await client.post('/v1/webhooks', { url: 'https://hooks.example.com/x', events: ['article.published'], secret: 'x'.repeat(16) })).status).toBe(201)
  })

  it.each([
    ['http://hooks.example.com/x', 'url must use https.'],
    ['https://127.0.0.1/x', '127.0.0.1'],
    ['https://localhost/x', 'localhost resolves to a private, loopback or link-local address'],
    ['https://169.254.169.254/latest/meta-data/', '169.254.169.254'],
    ['https://[fd00:ec2::254]/', 'fd00:ec2::254'],
    ['https://[::1]:8443/', '::1'],
    ['https://internal.example/x', '10.20.30.40'],
    ['https://rebind.example/x', '127.0.0.1'],
    ['https://nowhere.invalid/x', 'could not be resolved'],
    ['https://user:pass@hooks.example.com/x', 'user name or password'],
  ])('refuses %s (422 on url) while private addresses are not allowed', async (url, mention) => {
    const answer = await apiClient(server.url, manageToken).post('/v1/webhooks', { url, events: ['article.published'], secret })
    expectProblem(answer, 422, 'validation_failed')
    expect(answer.body.errors).toEqual([{ field: 'url', message: expect.stringContaining(mention) }])
  })

  it('lists newest first in the paged envelope', async () => {
    const tenant = await createTestTenant()
    const client = apiClient(server.url, await tenant.token(['webhooks:manage']))
    const ids: string[] = []
    for (const n of [1, 2, 3]) ids.push((await client.post('/v1/webhooks', { url: `https://hooks.example.com/${n}`, events: ['media.uploaded'], secret })).body.webhook_id)

    const first = await client.get('/v1/webhooks?limit=2')
    expect(first.status).toBe(200)
    expect(first.body).toMatchObject({ total: 3, limit: 2, offset: 0, next_offset: 2 })
    expect(first.body.items.map((item: any) => item.webhook_id)).toEqual([ids[2], ids[1]])
    expect(first.text).not.toContain(secret)
    const second = await client.get('/v1/webhooks?limit=2&offset=2')
    expect(second.body).toMatchObject({ total: 3, limit: 2, offset: 2, next_offset: null })
    expect(second.body.items.map((item: any) => item.webhook_id)).toEqual([ids[0]])
    expectProblem(await client.get('/v1/webhooks?limit=500'), 422, 'validation_failed')
    expectProblem(await client.get('/v1/webhooks?page=2'), 422, 'validation_failed')
  })

  it('gets, patches (url, events, secret) and audits without recording the secret', async () => {
    const client = apiClient(server.url, manageToken)
    const created = (await client.post('/v1/webhooks', { url: 'https://hooks.example.com/before', events: ['article.created'], secret })).body
    const got = await client.get(`/v1/webhooks/${created.webhook_id}`)
    expect(got.status).toBe(200)
    expect(got.body).toEqual(created)

    const newSecret = 'rotated-secret-abcdefghijk'
    const patched = await client.patch(`/v1/webhooks/${created.webhook_id}`, { url: 'https://hooks.example.com/after', events: ['article.created', 'article.archived'], secret: newSecret })
    expect(patched.status).toBe(200)
    expect(patched.body).toMatchObject({ webhook_id: created.webhook_id, url: 'https://hooks.example.com/after', events: ['article.created', 'article.archived'], status: 'enabled' })
    expect(patched.text).not.toContain(newSecret)
    const row = await db.webhookSubscription.findUniqueOrThrow({ where: { id: created.webhook_id } })
    expect(decryptSecret(row.secretEncrypted)).toBe(newSecret)
    const audit = await db.auditEntry.findFirstOrThrow({ where: { targetId: created.webhook_id, action: 'webhook.updated' } })
    expect(audit.metadata).toMatchObject({ changed: ['url', 'events', 'secret'] })
    expect(JSON.stringify(audit.metadata)).not.toContain(newSecret)

    const invalid = await client.patch(`/v1/webhooks/${created.webhook_id}`, { url: 'https://10.0.0.1/x', events: [], status: 'disabled', secret: 'short' })
    expectProblem(invalid, 422, 'validation_failed')
    expect(fieldsOf(invalid)).toEqual(['events', 'secret', 'status'])
    const privateUrl = await client.patch(`/v1/webhooks/${created.webhook_id}`, { url: 'https://10.0.0.1/x' })
    expect(fieldsOf(privateUrl)).toEqual(['url'])
    expect((await client.get(`/v1/webhooks/${created.webhook_id}`)).body.url).toBe('https://hooks.example.com/after')
  })

  it('re-enables a disabled subscription with status "enabled", clearing the reason, audited', async () => {
    const client = apiClient(server.url, manageToken)
    const created = (await client.post('/v1/webhooks', { url: 'https://hooks.example.com/flaky', events: ['article.published'], secret })).body
    await db.webhookSubscription.update({ where: { id: created.webhook_id }, data: { status: 'disabled', disabledAt: new Date(), disabledReason: 'delivery_failures' } })
    const disabled = await client.get(`/v1/webhooks/${created.webhook_id}`)
    expect(disabled.body).toMatchObject({ status: 'disabled', disabled_reason: 'delivery_failures', disabled_at: expect.any(String) })

    const reenabled = await client.patch(`/v1/webhooks/${created.webhook_id}`, { status: 'enabled' })
    expect(reenabled.status).toBe(200)
    expect(reenabled.body).toMatchObject({ status: 'enabled', disabled_at: null, disabled_reason: null })
    const audit = await db.auditEntry.findFirstOrThrow({ where: { targetId: created.webhook_id, action: 'webhook.reenabled' } })
    expect(audit.metadata).toEqual({ previous_reason: 'delivery_failures' })
    // Already enabled: nothing changes and nothing more is audited.
    expect((await client.patch(`/v1/webhooks/${created.webhook_id}`, { status: 'enabled' })).status).toBe(200)
    expect(await db.auditEntry.count({ where: { targetId: created.webhook_id, action: 'webhook.reenabled' } })).toBe(1)
  })

  it('pauses and resumes with PATCH status, audited; a disabled subscription cannot be paused (409)', async () => {
    const client = apiClient(server.url, manageToken)
    const created = (await client.post('/v1/webhooks', { url: 'https://hooks.example.com/pausable', events: ['article.published'], secret })).body
    const paused = await client.patch(`/v1/webhooks/${created.webhook_id}`, { status: 'paused' })
    expect(paused.status).toBe(200)
    expect(paused.body.status).toBe('paused')
    expect((await client.get(`/v1/webhooks/${created.webhook_id}`)).body.status).toBe('paused')
    const resumed = await client.patch(`/v1/webhooks/${created.webhook_id}`, { status: 'enabled' })
    expect(resumed.body).toMatchObject({ status: 'enabled', disabled_at: null })
    const actions = await db.auditEntry.findMany({ where: { targetId: created.webhook_id }, orderBy: { createdAt: 'asc' }, select: { action: true } })
    expect(actions.map((entry) => entry.action)).toEqual(['webhook.created', 'webhook.paused', 'webhook.resumed'])

    await db.webhookSubscription.update({ where: { id: created.webhook_id }, data: { status: 'disabled', disabledAt: new Date(), disabledReason: 'receiver_gone' } })
    const refused = await client.patch(`/v1/webhooks/${created.webhook_id}`, { status: 'paused' })
    expectProblem(refused, 409, 'webhook_disabled')
    expect(refused.body.detail).toContain('re-enable it')
    expectProblem(await client.patch(`/v1/webhooks/${created.webhook_id}`, { status: 'stopped' }), 422, 'validation_failed')
  })

  it('deletes with 204; afterwards the subscription is gone, and the deletion is audited', async () => {
    const client = apiClient(server.url, manageToken)
    const created = (await client.post('/v1/webhooks', { url: 'https://hooks.example.com/bye', events: ['article.published'], secret })).body
    const deleted = await client.delete(`/v1/webhooks/${created.webhook_id}`)
    expect(deleted.status).toBe(204)
    expect(deleted.text).toBe('')
    expectProblem(await client.get(`/v1/webhooks/${created.webhook_id}`), 404, 'not_found')
    expectProblem(await client.delete(`/v1/webhooks/${created.webhook_id}`), 404, 'not_found')
    expect(await db.auditEntry.count({ where: { targetId: created.webhook_id, action: 'webhook.deleted' } })).toBe(1)
  })

  it('bounds the subscriptions of a newsroom: past WEBHOOK_MAX_SUBSCRIPTIONS a creation is a 409 that says the limit, even when they race', async () => {
    stubEnv({ WEBHOOK_MAX_SUBSCRIPTIONS: '3' })
    try {
      const crowded = await createTestTenant()
      const client = apiClient(server.url, await crowded.token(['webhooks:manage']))
      const subscribe = (index: number) => client.post('/v1/webhooks', { url: `https://hooks.example.com/crowd-${index}`, events: ['article.published'], secret })
      // Five at once for three places: exactly three are created.
      const answers = await Promise.all([0, 1, 2, 3, 4].map(subscribe))
      expect(answers.map((answer) => answer.status).sort()).toEqual([201, 201, 201, 409, 409])
      const refused = answers.find((answer) => answer.status === 409)!
      expectProblem(refused, 409, 'webhook_limit_reached')
      expect(refused.body.limit).toBe(3)
      expect(refused.body.detail).toContain('the most it may have (3)')
      expect(await db.webhookSubscription.count({ where: { tenantId: crowded.tenant.id } })).toBe(3)
      // Other newsrooms are counted apart.
      const roomy = await createTestTenant()
      expect((await apiClient(server.url, await roomy.token(['webhooks:manage'])).post('/v1/webhooks', { url: 'https://hooks.example.com/not-crowded', events: ['article.published'], secret })).status).toBe(201)
      // Deleting one makes room again.
      const created = answers.find((answer) => answer.status === 201)!
      expect((await client.delete(`/v1/webhooks/${created.body.webhook_id}`)).status).toBe(204)
      expect((await subscribe(5)).status).toBe(201)
      expectProblem(await subscribe(6), 409, 'webhook_limit_reached')
    } finally {
      vi.unstubAllEnvs()
      stubEnv({ WEBHOOK_ALLOW_PRIVATE_URLS: undefined, WEBHOOK_SECRET_KEY: 'api-test-key' })
    }
  })

  it('shows the deliveries log, newest first, with every attempt', async () => {
    const client = apiClient(server.url, manageToken)
    const created = (await client.post('/v1/webhooks', { url: 'https://hooks.example.com/log', events: ['article.published'], secret })).body
    const tenantId = newsroom.tenant.id
    const older = await db.event.create({ data: { id: createId('evt'), tenantId, kind: 'article.published', occurredAt: new Date(Date.now() - 60_000), data: {} } })
    const newer = await db.event.create({ data: { id: createId('evt'), tenantId, kind: 'article.published', occurredAt: new Date(), data: {} } })
    const failedAt = new Date(Date.now() - 50_000)
    const retryAt = new Date(Date.now() + 240_000)
    const first = await db.delivery.create({ data: { id: createId('dlv'), tenantId, eventId: older.id, subscriptionId: created.webhook_id, status: 'succeeded', createdAt: new Date(Date.now() - 60_000) } })
    await db.deliveryAttempt.createMany({
      data: [
        { id: createId('att'), deliveryId: first.id, attempt: 1, at: failedAt, responseStatus: null, durationMs: 10_000, error: 'Timed out after 10 s without a complete response.' },
        { id: createId('att'), deliveryId: first.id, attempt: 2, at: new Date(failedAt.getTime() + 60_000), responseStatus: 200, durationMs: 42, error: null },
      ],
    })
    const second = await db.delivery.create({ data: { id: createId('dlv'), tenantId, eventId: newer.id, subscriptionId: created.webhook_id, status: 'pending', nextAttemptAt: retryAt } })
    await db.deliveryAttempt.create({ data: { id: createId('att'), deliveryId: second.id, attempt: 1, at: new Date(), responseStatus: 500, durationMs: 12, error: 'The receiver answered 500.' } })

    const log = await client.get(`/v1/webhooks/${created.webhook_id}/deliveries`)
    expect(log.status).toBe(200)
    expect(log.body).toMatchObject({ total: 2, limit: 50, offset: 0, next_offset: null })
    expect(log.body.items).toEqual([
      {
        delivery_id: second.id,
        event_id: newer.id,
        event: 'article.published',
        status: 'pending',
        attempts: [{ attempt: 1, at: expect.any(String), response_status: 500, duration_ms: 12, error: 'The receiver answered 500.', request: null, response: null }],
        next_attempt_at: retryAt.toISOString(),
        created_at: second.createdAt.toISOString(),
      },
      {
        delivery_id: first.id,
        event_id: older.id,
        event: 'article.published',
        status: 'succeeded',
        attempts: [
          { attempt: 1, at: failedAt.toISOString(), response_status: null, duration_ms: 10_000, error: 'Timed out after 10 s without a complete response.', request: null, response: null },
          { attempt: 2, at: expect.any(String), response_status: 200, duration_ms: 42, error: null, request: null, response: null },
        ],
        next_attempt_at: null,
        created_at: first.createdAt.toISOString(),
      },
    ])
    const paged = await client.get(`/v1/webhooks/${created.webhook_id}/deliveries?limit=1`)
    expect(paged.body).toMatchObject({ total: 2, next_offset: 1, items: [{ delivery_id: second.id }] })
  })

  it('needs webhooks:manage (or admin): 403 insufficient_scope otherwise', async () => {
    const articlesOnly = apiClient(server.url, await newsroom.token(['articles:read', 'articles:write']))
    const created = (await apiClient(server.url, manageToken).post('/v1/webhooks', { url: 'https://hooks.example.com/scoped', events: ['article.published'], secret })).body
    for (const answer of [
      await articlesOnly.get('/v1/webhooks'),
      await articlesOnly.post('/v1/webhooks', { url: 'https://hooks.example.com/x', events: ['article.published'], secret }),
      await articlesOnly.get(`/v1/webhooks/${created.webhook_id}`),
      await articlesOnly.patch(`/v1/webhooks/${created.webhook_id}`, { status: 'enabled' }),
      await articlesOnly.delete(`/v1/webhooks/${created.webhook_id}`),
      await articlesOnly.get(`/v1/webhooks/${created.webhook_id}/deliveries`),
      await articlesOnly.post(`/v1/webhooks/${created.webhook_id}/rotate-secret`),
    ]) {
      expectProblem(answer, 403, 'insufficient_scope')
      expect(answer.headers.get('www-authenticate')).toBe('Bearer realm="newsroom", error="insufficient_scope", scope="webhooks:manage"')
    }
    expect((await apiClient(server.url, await newsroom.token(['admin'])).get('/v1/webhooks')).status).toBe(200)
    expectProblem(await apiClient(server.url).get('/v1/webhooks'), 401, 'unauthenticated')
  })

  it("treats another tenant's webhook id as not found (404), never touching it", async () => {
    const theirs = (await apiClient(server.url, await other.token(['webhooks:manage'])).post('/v1/webhooks', { url: 'https://hooks.example.com/theirs', events: ['article.published'], secret })).body
    const client = apiClient(server.url, manageToken)
    expectProblem(await client.get(`/v1/webhooks/${theirs.webhook_id}`), 404, 'not_found')
    expectProblem(await client.patch(`/v1/webhooks/${theirs.webhook_id}`, { url: 'https://hooks.example.com/mine-now' }), 404, 'not_found')
    expectProblem(await client.delete(`/v1/webhooks/${theirs.webhook_id}`), 404, 'not_found')
    expectProblem(await client.get(`/v1/webhooks/${theirs.webhook_id}/deliveries`), 404, 'not_found')
    expectProblem(await client.post(`/v1/webhooks/${theirs.webhook_id}/rotate-secret`), 404, 'not_found')
    expect((await client.get('/v1/webhooks?limit=200')).body.items.map((item: any) => item.webhook_id)).not.toContain(theirs.webhook_id)
    expect(await db.webhookSubscription.findUniqueOrThrow({ where: { id: theirs.webhook_id } })).toMatchObject({ url: 'https://hooks.example.com/theirs' })
    expectProblem(await client.get('/v1/webhooks/whk_doesnotexist'), 404, 'not_found')
  })

  it('rotates the secret: a generated secret shown once, the old one kept encrypted for 24 h, audited without either', async () => {
    const client = apiClient(server.url, manageToken)
    const created = (await client.post('/v1/webhooks', { url: 'https://hooks.example.com/rotating', events: ['article.published'], secret })).body
    const before = Date.now()
    const answer = await client.post(`/v1/webhooks/${created.webhook_id}/rotate-secret`)

    expect(answer.status).toBe(200)
    expect(answer.headers.get('cache-control')).toBe('no-store')
    const newSecret: string = answer.body.secret
    expect(newSecret).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(answer.body.standard_webhooks_secret).toBe(`whsec_${Buffer.from(newSecret, 'utf8').toString('base64')}`)
    expect(answer.body.webhook).toMatchObject({ webhook_id: created.webhook_id, status: 'enabled' })
    const expires = Date.parse(answer.body.webhook.previous_secret_expires_at)
    expect(expires - before).toBeGreaterThanOrEqual(24 * 3_600_000 - 1_000)
    expect(expires - before).toBeLessThanOrEqual(24 * 3_600_000 + 60_000)
    expect((await client.get(`/v1/webhooks/${created.webhook_id}`)).body.previous_secret_expires_at).toBe(answer.body.webhook.previous_secret_expires_at)

    const row = await db.webhookSubscription.findUniqueOrThrow({ where: { id: created.webhook_id } })
    expect(decryptSecret(row.secretEncrypted)).toBe(newSecret)
    expect(decryptSecret(row.previousSecretEncrypted!)).toBe(secret)
    expect(`${row.secretEncrypted} ${row.previousSecretEncrypted}`).not.toContain(newSecret)
    const audit = await db.auditEntry.findFirstOrThrow({ where: { targetId: created.webhook_id, action: 'webhook.secret_rotated' } })
    expect(audit.actorId).toBe(newsroom.users.admin.id)
    expect(JSON.stringify(audit.metadata)).not.toContain(newSecret)
    expect(JSON.stringify(audit.metadata)).not.toContain(secret)

    // A secret set outright with PATCH replaces it at once and ends the overlap.
    const patched = await client.patch(`/v1/webhooks/${created.webhook_id}`, { secret: 'chosen-by-me-0123456789' })
    expect(patched.body.previous_secret_expires_at).toBeNull()
  })

  it('answers 405 with Allow for methods a route does not have', async () => {
    const answer = await apiClient(server.url, manageToken).call('PUT', '/v1/webhooks')
    expectProblem(answer, 405, 'method_not_allowed')
    expect(answer.headers.get('allow')).toBe('GET, POST, HEAD, OPTIONS')
  })
})
