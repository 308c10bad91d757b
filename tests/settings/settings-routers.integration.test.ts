import { createHmac } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { TRPCError } from '@trpc/server'
import { fetchRequestHandler } from '@trpc/server/adapters/fetch'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createArticle } from '../../lib/articles/create-article.ts'
import { db } from '../../lib/db/client.ts'
import type { Role } from '../../lib/db/generated/enums.ts'
import { ValidationError } from '../../lib/errors.ts'
import { tokenRefusal } from '../../lib/tokens/token-bounds.ts'
import { authenticateToken } from '../../lib/tokens/authenticate-token.ts'
import { createCallerFactory, type PortalContext } from '../../lib/trpc/init.ts'
import { appRouter } from '../../lib/trpc/routers/app-router.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

const createCaller = createCallerFactory(appRouter)
const settingsAreas = ['apiKeys.', 'webhooks.', 'users.', 'departments.']
const settingsProcedures = Object.keys(appRouter._def.procedures).filter((path) => settingsAreas.some((area) => path.startsWith(area)))

let newsroom: TestTenant
let receiver: Server
let receiverUrl: string
const received: { headers: Record<string, unknown>; body: string }[] = []
const savedAllowPrivate = process.env.WEBHOOK_ALLOW_PRIVATE_URLS

function contextFor(role: Role | null): PortalContext {
  if (!role) return { member: null, tenant: null }
  const { tenant } = newsroom
  return {
    member: { id: newsroom.users[role].id, email: newsroom.users[role].email, name: `${role} person`, role, tenantId: tenant.id, tenantName: tenant.name },
    tenant: { id: tenant.id, slug: tenant.slug, name: tenant.name, plan: tenant.plan, publicSiteUrl: tenant.publicSiteUrl },
    // Signed in just now, so dangerous acts need no re-authentication (sessions-and-sudo covers that).
    session: { id: `ses_${role}`, reauthenticatedAt: new Date() },
  }
}

function call(role: Role | null, path: string, input?: unknown): Promise<any> {
  const procedure = path.split('.').reduce<any>((node, key) => node[key], createCaller(contextFor(role)))
  return procedure(input)
}

async function trpcError(promise: Promise<unknown>): Promise<TRPCError> {
  const error = await promise.then(() => null, (caught: unknown) => caught)
  expect(error).toBeInstanceOf(TRPCError)
  return error as TRPCError
}

beforeAll(async () => {
  newsroom = await createTestTenant()
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') })
      res.writeHead(req.url === '/fails' ? 503 : 204).end()
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`
})

afterAll(async () => {
  process.env.WEBHOOK_ALLOW_PRIVATE_URLS = savedAllowPrivate
  await new Promise((resolve) => receiver.close(resolve))
})

describe('who may call the settings procedures', () => {
  it('covers every procedure of the four settings areas', () => {
    expect(settingsProcedures.length).toBeGreaterThanOrEqual(19)
    expect(settingsProcedures).toEqual(expect.arrayContaining(['apiKeys.create', 'apiKeys.revoke', 'webhooks.sendTest', 'users.deactivate', 'departments.remove']))
  })

  for (const role of ['editor', 'writer'] as const) {
    it(`refuses a${role === 'editor' ? 'n' : ''} ${role} on every one of them with FORBIDDEN, before reading the input`, async () => {
      for (const path of settingsProcedures) {
        const error = await trpcError(call(role, path, { name: 'x', scopes: ['articles:read'], webhookId: 'whk_x', userId: newsroom.users.admin.id, role: 'writer' }))
        expect({ path, code: error.code }).toEqual({ path, code: 'FORBIDDEN' })
      }
      // Nothing was changed by any of those calls.
      expect(await db.apiToken.count({ where: { tenantId: newsroom.tenant.id } })).toBe(0)
      expect((await db.user.findUniqueOrThrow({ where: { id: newsroom.users.admin.id } })).role).toBe('admin')
    })
  }

  it('refuses a caller without a session with UNAUTHORIZED', async () => {
    for (const path of settingsProcedures) expect((await trpcError(call(null, path, {}))).code).toBe('UNAUTHORIZED')
  })

  it('answers FORBIDDEN over HTTP too, in the shape the portal reads', async () => {
    const handle = (role: Role, path: string, body: unknown) =>
      fetchRequestHandler({
        endpoint: '/api/trpc',
        req: new Request(`http://portal.test/api/trpc/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
        router: appRouter,
        createContext: () => contextFor(role),
      })
    const forbidden = await handle('writer', 'apiKeys.create', { name: 'Sneaky', scopes: ['admin'] })
    expect(forbidden.status).toBe(403)
    expect((await forbidden.json()).error.data).toMatchObject({ code: 'FORBIDDEN', httpStatus: 403 })

    const invalid = await handle('admin', 'departments.add', { name: '' })
    expect(invalid.status).toBe(422)
    expect((await invalid.json()).error.data).toMatchObject({
      code: 'UNPROCESSABLE_CONTENT',
      domainCode: 'validation_failed',
      fieldErrors: [{ field: 'name', message: 'Enter a department name.' }],
    })

    const [sport] = newsroom.departments.slice(1)
    await createArticle(newsroom.actor('writer'), { headline: 'Keeps Sport busy', department_id: sport!.id })
    const inUse = await handle('admin', 'departments.remove', { departmentId: sport!.id })
    expect(inUse.status).toBe(409)
    expect((await inUse.json()).error).toMatchObject({ message: expect.stringContaining('cannot be removed while 1 article uses it'), data: { domainCode: 'department_in_use' } })
  })
})

describe('an admin', () => {
  it('creates a key whose token appears once, lists it without the token, and revokes it at once', async () => {
    const created = await call('admin', 'apiKeys.create', { name: 'Wire importer', scopes: ['articles:read', 'webhooks:manage'] })
    expect(created.token).toMatch(/^nrs_/)
    expect(created.key).toMatchObject({ name: 'Wire importer', scopes: ['articles:read', 'webhooks:manage'], createdByName: `${newsroom.tenant.slug} admin`, rotationRecommended: false })
    expect(typeof created.key.createdAt).toBe('string')

    const listed = await call('admin', 'apiKeys.list')
    expect(JSON.stringify(listed)).not.toContain(created.token)
    expect(listed[0]).toMatchObject({ id: created.key.id, prefix: created.key.prefix, revokedAt: null })
    expect(created.token.startsWith(created.key.prefix)).toBe(true)

    expect(await authenticateToken(created.token)).not.toBeNull()
    await call('admin', 'apiKeys.revoke', { id: created.key.id })
    // Refused from the next request on (its bounds say revoked), and still found, so its log keeps the refusals.
    expect(tokenRefusal((await authenticateToken(created.token))!.bounds, '127.0.0.1')?.detail).toMatch(/^This API key was revoked at /)
  })

  it('flags keys older than 90 days for rotation', async () => {
    const created = await call('admin', 'apiKeys.create', { name: 'Old key', scopes: ['articles:read'] })
    await db.apiToken.update({ where: { id: created.key.id }, data: { createdAt: new Date(Date.now() - 91 * 24 * 3_600_000) } })
    const listed = await call('admin', 'apiKeys.list')
    expect(listed.find((key: any) => key.id === created.key.id)).toMatchObject({ rotationRecommended: true })
  })

  it('gets field errors for an invalid key and never a scope it may not grant', async () => {
    const error = await trpcError(call('admin', 'apiKeys.create', { name: ' ', scopes: [] }))
    expect(error.code).toBe('UNPROCESSABLE_CONTENT')
    expect((error.cause as ValidationError).fieldErrors[0]).toMatchObject({ field: 'name' })
    expect((await trpcError(call('admin', 'apiKeys.create', { name: 'Bad', scopes: ['root'] }))).code).toBe('UNPROCESSABLE_CONTENT')
  })

  it('manages users through thin procedures over the domain', async () => {
    const created = await call('admin', 'users.create', { email: 'cat@example.com', name: 'Cat Grant', role: 'writer', password: '' })
    expect(created.generatedPassword).toHaveLength(20)
    expect(created.user).toMatchObject({ email: 'cat@example.com', role: 'writer', active: true, deactivatedAt: null })
    expect((await call('admin', 'users.changeRole', { userId: created.user.id, role: 'editor' })).role).toBe('editor')
    const key = await call('admin', 'apiKeys.create', { name: 'Cat’s key', scopes: ['articles:read'] })
    await db.apiToken.update({ where: { id: key.key.id }, data: { ownerId: created.user.id } })
    expect((await call('admin', 'users.deactivate', { userId: created.user.id })).active).toBe(false)
    // Not revoked, yet refused: the list says so instead of showing it as active.
    expect((await call('admin', 'apiKeys.list')).find((item: any) => item.id === key.key.id)).toMatchObject({ revokedAt: null, ownerActive: false })
    const lastAdmin = await trpcError(call('admin', 'users.changeRole', { userId: newsroom.users.admin.id, role: 'writer' }))
    expect(lastAdmin.code).toBe('CONFLICT')
    expect(lastAdmin.message).toContain('last active admin')
  })

  it('manages webhooks: create, test, see the attempt, redeliver, re-enable, edit and delete', async () => {
    delete process.env.WEBHOOK_ALLOW_PRIVATE_URLS
    const refused = await trpcError(call('admin', 'webhooks.create', { url: `${receiverUrl}/hook`, events: ['user.created'], secret: 'a-signing-secret-of-32-characters' }))
    expect((refused.cause as ValidationError).fieldErrors[0]?.field).toBe('url')

    process.env.WEBHOOK_ALLOW_PRIVATE_URLS = 'true'
    const secret = 'a-signing-secret-of-32-characters'
    const webhook = await call('admin', 'webhooks.create', { url: `${receiverUrl}/hook`, events: ['user.created', 'article.published'], secret })
    expect(webhook).toMatchObject({ status: 'enabled', last_delivery: null })
    expect(JSON.stringify(webhook)).not.toContain(secret)

    const sent = await call('admin', 'webhooks.sendTest', { webhookId: webhook.webhook_id })
    // The same record POST /v1/webhooks/{id}/test answers.
    expect(sent).toMatchObject({ result: 'succeeded', response_status: 204, attempt: 1 })
    const delivered = received.at(-1)!
    expect(delivered.headers['x-service-signature']).toBe(createHmac('sha256', secret).update(delivered.body).digest('hex'))
    expect(JSON.parse(delivered.body)).toMatchObject({ event: 'webhook.test' })

    const [listed] = (await call('admin', 'webhooks.list')).items
    expect(listed).toMatchObject({ webhook_id: webhook.webhook_id, last_delivery: { response_status: 204, succeeded: true } })

    const redelivered = await call('admin', 'webhooks.redeliver', { deliveryId: sent.delivery_id })
    expect(redelivered).toMatchObject({ result: 'succeeded', attempt: 2 })
    const deliveries = await call('admin', 'webhooks.deliveries', { webhookId: webhook.webhook_id, limit: 50, offset: 0 })
    expect(deliveries.items[0]).toMatchObject({ delivery_id: sent.delivery_id, event: 'webhook.test', status: 'succeeded' })
    expect(deliveries.items[0].attempts.map((attempt: any) => [attempt.attempt, attempt.response_status])).toEqual([[1, 204], [2, 204]])

    await db.webhookSubscription.update({ where: { id: webhook.webhook_id }, data: { status: 'disabled', disabledAt: new Date(), disabledReason: 'delivery_failures' } })
    expect(await call('admin', 'webhooks.reenable', { webhookId: webhook.webhook_id })).toMatchObject({ status: 'enabled', disabled_reason: null })

    const edited = await call('admin', 'webhooks.update', { webhookId: webhook.webhook_id, url: `${receiverUrl}/fails`, events: ['workflow.transitioned'] })
    expect(edited).toMatchObject({ url: `${receiverUrl}/fails`, events: ['workflow.transitioned'] })
    expect(await call('admin', 'webhooks.sendTest', { webhookId: webhook.webhook_id })).toMatchObject({ result: 'failed', response_status: 503 })

    await call('admin', 'webhooks.delete', { webhookId: webhook.webhook_id })
    expect((await trpcError(call('admin', 'webhooks.get', { webhookId: webhook.webhook_id }))).code).toBe('NOT_FOUND')
    const audit = await db.auditEntry.findMany({ where: { targetId: webhook.webhook_id }, orderBy: { createdAt: 'asc' } })
    expect(audit.map((entry) => entry.action)).toEqual(['webhook.created', 'webhook.reenabled', 'webhook.updated', 'webhook.deleted'])
  })

  it('cannot reach another newsroom’s webhooks, users or departments', async () => {
    const other = await createTestTenant()
    expect((await trpcError(call('admin', 'users.deactivate', { userId: other.users.writer.id }))).code).toBe('NOT_FOUND')
    expect((await trpcError(call('admin', 'departments.remove', { departmentId: other.departments[0]!.id }))).code).toBe('NOT_FOUND')
    expect((await trpcError(call('admin', 'webhooks.deliveries', { webhookId: 'whk_elsewhere', limit: 50, offset: 0 }))).code).toBe('NOT_FOUND')
  })
})
