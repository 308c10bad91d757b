import { TRPCError } from '@trpc/server'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { recentAuthenticationActs } from '../../lib/auth/recent-authentication-acts.ts'
import { db } from '../../lib/db/client.ts'
import type { Role } from '../../lib/db/generated/enums.ts'
import { createCallerFactory, type PortalContext } from '../../lib/trpc/init.ts'
import { appRouter } from '../../lib/trpc/routers/app-router.ts'
import { createWebhook } from '../../lib/webhooks/manage-subscriptions.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// Sudo mode decided in one place (lib/auth/recent-authentication-acts.ts, beside `can`): every
// portal mutation is classified, and the portal's tRPC middleware enforces the list, so an act
// that can redirect data, widen access or remove a person asks "Confirm it's you" whichever
// procedure carries it (issue 46, point 2).

type Procedure = { _def: { type: 'query' | 'mutation' | 'subscription' } }
const procedures = (appRouter as unknown as { _def: { procedures: Record<string, Procedure> } })._def.procedures
const mutations = Object.entries(procedures).filter(([, procedure]) => procedure._def.type === 'mutation').map(([path]) => path)

const createCaller = createCallerFactory(appRouter)
let newsroom: TestTenant

const elevenMinutesAgo = () => new Date(Date.now() - 11 * 60 * 1000)

function as(role: Role, reauthenticatedAt: Date) {
  const user = newsroom.users[role]
  const context: PortalContext = {
    member: { id: user.id, email: user.email, name: `${role}`, role, tenantId: newsroom.tenant.id, tenantName: newsroom.tenant.name },
    tenant: newsroom.actor(role).tenant,
    session: { id: `ses_${role}`, reauthenticatedAt },
    clientAddress: '127.0.0.1',
  }
  return createCaller(context)
}

async function refusal(promise: Promise<unknown>): Promise<{ code: string; domainCode: string | null; message: string }> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  expect(error).toBeInstanceOf(TRPCError)
  const trpc = error as TRPCError
  return { code: trpc.code, domainCode: (trpc.cause as { code?: string } | undefined)?.code ?? null, message: trpc.message }
}

let webhookId: string
let keyId: string

beforeAll(async () => {
  // The receiver is on this machine, and the secrets are stored encrypted.
  vi.stubEnv('WEBHOOK_ALLOW_PRIVATE_URLS', 'true')
  vi.stubEnv('WEBHOOK_SECRET_KEY', 'recent-authentication-test-key')
  newsroom = await createTestTenant()
  const webhook = await createWebhook(newsroom.actor('admin'), { url: 'http://127.0.0.1:6301/hooks', events: ['article.published'], secret: 'receiver-secret-0123456789' })
  webhookId = webhook.id
  const created = await as('admin', new Date()).apiKeys.create({ name: 'Site', scopes: ['articles:read'], expiry: 'never', allowedAddresses: ['192.0.2.0/24'] })
  keyId = created.key.id
})

afterAll(() => {
  vi.unstubAllEnvs()
})

describe('the declared list of acts that need recent authentication', () => {
  it('classifies every portal mutation, and names no procedure that is not one', () => {
    expect(mutations.length).toBeGreaterThan(40)
    const unclassified = mutations.filter((path) => !Object.hasOwn(recentAuthenticationActs, path))
    expect(unclassified, 'classify these in lib/auth/recent-authentication-acts.ts').toEqual([])
    const stale = Object.keys(recentAuthenticationActs).filter((path) => !mutations.includes(path))
    expect(stale).toEqual([])
  })

  it('asks for the acts the security review named: webhooks, portal subscriptions, key allowlists, roles, deactivation, SSO, two-factor policy, content keys', () => {
    for (const path of ['webhooks.create', 'webhooks.update', 'webhooks.rotateSecret', 'apiKeys.setAllowlist', 'users.changeRole', 'users.deactivate', 'sso.save', 'twoFactorPolicy.save', 'contentKeys.create']) {
      expect(recentAuthenticationActs[path], path).toBe('always')
    }
  })
})

describe('with a sudo window that ended 11 minutes ago', () => {
  it("changing a webhook's URL and secret is refused with reauthentication_required, and the webhook still points where it did", async () => {
    const answer = await refusal(as('admin', elevenMinutesAgo()).webhooks.update({ webhookId, url: 'http://127.0.0.1:6302/collect', secret: 'attacker-secret-0123456789' }))
    expect(answer).toMatchObject({ code: 'FORBIDDEN', domainCode: 'reauthentication_required' })
    expect(answer.message).toContain('Confirm it is you')
    expect((await db.webhookSubscription.findUniqueOrThrow({ where: { id: webhookId } })).url).toBe('http://127.0.0.1:6301/hooks')
  })

  it('changing only the events a webhook gets is refused too', async () => {
    expect(await refusal(as('admin', elevenMinutesAgo()).webhooks.update({ webhookId, events: ['article.created', 'article.updated'] }))).toMatchObject({ domainCode: 'reauthentication_required' })
    expect((await db.webhookSubscription.findUniqueOrThrow({ where: { id: webhookId } })).events).toEqual(['article.published'])
  })

  it('creating a subscription through the portal is refused', async () => {
    const before = await db.webhookSubscription.count({ where: { tenantId: newsroom.tenant.id } })
    expect(await refusal(as('admin', elevenMinutesAgo()).webhooks.create({ url: 'http://127.0.0.1:6302/collect', events: ['article.created'], secret: 'attacker-secret-0123456789' }))).toMatchObject({ domainCode: 'reauthentication_required' })
    expect(await db.webhookSubscription.count({ where: { tenantId: newsroom.tenant.id } })).toBe(before)
  })

  it("loosening or clearing a key's allowlist is refused, and the allowlist stays", async () => {
    for (const allowedAddresses of [['0.0.0.0/0'], []]) {
      expect(await refusal(as('admin', elevenMinutesAgo()).apiKeys.setAllowlist({ id: keyId, allowedAddresses }))).toMatchObject({ domainCode: 'reauthentication_required' })
    }
    expect((await db.apiToken.findUniqueOrThrow({ where: { id: keyId } })).allowedAddresses).toEqual(['192.0.2.0/24'])
  })

  it('deactivating a member is refused, and the member stays active', async () => {
    expect(await refusal(as('admin', elevenMinutesAgo()).users.deactivate({ userId: newsroom.users.writer.id }))).toMatchObject({ domainCode: 'reauthentication_required' })
    expect((await db.user.findUniqueOrThrow({ where: { id: newsroom.users.writer.id } })).active).toBe(true)
  })

  it('creating a content key is refused', async () => {
    expect(await refusal(as('admin', elevenMinutesAgo()).contentKeys.create({ name: 'Embed' }))).toMatchObject({ domainCode: 'reauthentication_required' })
    expect(await db.contentKey.count({ where: { tenantId: newsroom.tenant.id } })).toBe(0)
  })

  it('an act that only takes access away (revoking a key, pausing a webhook) goes through', async () => {
    const stale = as('admin', elevenMinutesAgo())
    expect((await stale.webhooks.pause({ webhookId })).status).toBe('paused')
    const other = await as('admin', new Date()).apiKeys.create({ name: 'Old', scopes: ['articles:read'], expiry: 'never', allowedAddresses: [] })
    expect((await stale.apiKeys.revoke({ id: other.key.id })).revokedAt).not.toBeNull()
  })

  it('a member without the role is told FORBIDDEN for their role, not asked to confirm', async () => {
    expect(await refusal(as('writer', elevenMinutesAgo()).users.deactivate({ userId: newsroom.users.editor.id }))).toMatchObject({ code: 'FORBIDDEN', domainCode: null })
  })

  it('once confirmed, the same change is saved', async () => {
    const fresh = as('admin', new Date())
    const updated = await fresh.webhooks.update({ webhookId, url: 'http://127.0.0.1:6301/moved' })
    expect(updated.url).toBe('http://127.0.0.1:6301/moved')
    expect((await fresh.users.deactivate({ userId: newsroom.users.writer.id })).active).toBe(false)
  })
})
