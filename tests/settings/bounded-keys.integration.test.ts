import { TRPCError } from '@trpc/server'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { db } from '../../lib/db/client.ts'
import type { Role } from '../../lib/db/generated/enums.ts'
import { listApiRequests } from '../../lib/request-log/list-api-requests.ts'
import { flushRequestLog } from '../../lib/request-log/record-api-request.ts'
import { forgetCachedTokens } from '../../lib/tokens/authenticate-token.ts'
import { createApiToken } from '../../lib/tokens/api-tokens.ts'
import { createCallerFactory, type PortalContext } from '../../lib/trpc/init.ts'
import { appRouter } from '../../lib/trpc/routers/app-router.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// Keys an admin can bound (expiry, an address allowlist), roll and rename: what /v1 answers a
// key used past its bounds, what the key's request log shows of it, and what the audit log keeps.

const createCaller = createCallerFactory(appRouter)
let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant

beforeAll(async () => {
  server = await startApiServer()
  newsroom = await createTestTenant()
})

afterAll(async () => {
  vi.unstubAllEnvs()
  await server.close()
})

/** The portal as the newsroom's admin, signed in (or confirmed) just now. */
function portal(role: Role = 'admin') {
  const { tenant, users } = newsroom
  const context: PortalContext = {
    member: { id: users[role].id, email: users[role].email, name: `${role} person`, role, tenantId: tenant.id, tenantName: tenant.name },
    tenant: { id: tenant.id, slug: tenant.slug, name: tenant.name, plan: tenant.plan, publicSiteUrl: tenant.publicSiteUrl },
    session: { id: 'ses_test', reauthenticatedAt: new Date() },
    clientAddress: '127.0.0.1',
  }
  return createCaller(context)
}

async function portalKey(input: Record<string, unknown>) {
  return portal().apiKeys.create({ name: 'Bounded', scopes: ['articles:read'], ...input } as never)
}

const read = (token: string, headers?: Record<string, string>) => apiClient(server.url, token).get('/v1/articles?limit=1', headers)

async function logOf(tokenId: string) {
  await flushRequestLog()
  return (await listApiRequests(newsroom.actor('admin'), { token_id: tokenId, limit: 50, offset: 0 })).items
}

async function auditOf(targetId: string) {
  return db.auditEntry.findMany({ where: { tenantId: newsroom.tenant.id, targetId }, orderBy: { createdAt: 'asc' } })
}

describe('a revoked key', () => {
  it('is a 401 saying when it was revoked, and its request log keeps the refusals made with it afterwards, with the client address', async () => {
    const { token, summary } = await createApiToken(newsroom.actor('admin'), { name: 'Soon revoked', scopes: ['articles:read'] })
    expect((await read(token)).status).toBe(200)
    await portal().apiKeys.revoke({ id: summary.id })
    const answer = await read(token, { 'X-Forwarded-For': '203.0.113.9' })
    expect(answer.status).toBe(401)
    const { revokedAt } = await db.apiToken.findUniqueOrThrow({ where: { id: summary.id } })
    expect(answer.body).toMatchObject({ code: 'unauthenticated', detail: `This API key was revoked at ${revokedAt!.toISOString()}. Create a new key in Settings → API Keys.` })
    expect(answer.headers.get('www-authenticate')).toContain('error="invalid_token"')
    const log = await logOf(summary.id)
    expect(log.map((entry) => entry.status)).toEqual([401, 200])
    expect(log[0]).toMatchObject({ problemCode: 'unauthenticated', tokenId: summary.id, clientAddress: expect.any(String) })
    expect(log[0]!.clientAddress).not.toBe('')
  })
})

describe('key expiry', () => {
  it('a key past its expiry is a 401 saying when it expired, and the request log shows it', async () => {
    const expiresAt = new Date(Date.now() - 60_000)
    const { token, summary } = await createApiToken(newsroom.actor('admin'), { name: 'Expired', scopes: ['articles:read'], expiresAt })
    const answer = await read(token)
    expect(answer.status).toBe(401)
    expect(answer.body).toMatchObject({ code: 'unauthenticated', detail: `This API key expired at ${expiresAt.toISOString()}. Create a new key in Settings → API Keys (and choose a later expiry, or none).` })
    expect(answer.headers.get('www-authenticate')).toContain('error="invalid_token"')
    expect(await logOf(summary.id)).toEqual([expect.objectContaining({ status: 401, problemCode: 'unauthenticated', tokenId: summary.id })])
    expect((await portal().apiKeys.get({ id: summary.id })).expired).toBe(true)
  })

  it('stops a key at its expiry even while its lookup is cached', async () => {
    const expiresAt = new Date(Date.now() + 4_000)
    const { token } = await createApiToken(newsroom.actor('admin'), { name: 'Short-lived', scopes: ['articles:read'], expiresAt })
    expect((await read(token)).status).toBe(200)
    await new Promise((resolve) => setTimeout(resolve, expiresAt.getTime() - Date.now() + 10))
    const answer = await read(token)
    expect(answer.status).toBe(401)
    expect(answer.body.detail).toContain(`expired at ${expiresAt.toISOString()}`)
  })

  it('takes 30/90/365 days or a date from the portal, and keys without one never expire', async () => {
    const before = Date.now()
    const ninety = await portalKey({ expiry: '90' })
    expect(new Date(ninety.key.expiresAt!).getTime()).toBeGreaterThanOrEqual(before + 90 * 86_400_000)
    expect(new Date(ninety.key.expiresAt!).getTime()).toBeLessThan(Date.now() + 90 * 86_400_000 + 1)
    const dated = await portalKey({ expiry: 'date', expiryDate: '2030-06-30' })
    expect(dated.key.expiresAt).toBe('2030-07-01T00:00:00.000Z')
    const forever = await portalKey({})
    expect(forever.key.expiresAt).toBeNull()
    expect((await read(forever.token)).status).toBe(200)
    expect((await read(ninety.token)).status).toBe(200)

    const past = await portal().apiKeys.create({ name: 'Past', scopes: ['articles:read'], expiry: 'date', expiryDate: '2020-01-01' } as never).catch((error: TRPCError) => error)
    expect(past).toBeInstanceOf(TRPCError)
    expect((past as TRPCError).message).toBe('The request has invalid fields; see errors.')
    expect(((past as TRPCError).cause as unknown as { fieldErrors: unknown }).fieldErrors).toEqual([{ field: 'expiryDate', message: 'Choose today or a later date.' }])
  })
})

describe('address allowlists', () => {
  it('refuses a request from outside the allowlist with a 403 naming the address but not the allowed ranges, and logs it', async () => {
    const { token, key } = await portalKey({ allowedAddresses: '203.0.113.0/24\n2001:db8::/32' })
    expect(key.allowedAddresses).toEqual(['203.0.113.0/24', '2001:db8::/32'])
    // The server appends the peer (127.0.0.1); with no trusted proxy, what the client says is ignored.
    const spoofed = await read(token, { 'X-Forwarded-For': '203.0.113.9' })
    expect(spoofed.status).toBe(403)
    expect(spoofed.body).toMatchObject({
      code: 'ip_not_allowed',
      title: 'Address not allowed',
      detail: "Requests from 127.0.0.1 may not use this API key: the key is limited to other addresses. Send it from an allowed address, or have an admin of the newsroom add this one to the key's allowlist.",
    })
    // Whoever holds a leaked key learns nothing of the newsroom's network from the refusal.
    expect(JSON.stringify(spoofed.body)).not.toMatch(/203\.0\.113|2001:db8/)
    expect(await logOf(key.id)).toEqual([expect.objectContaining({ status: 403, problemCode: 'ip_not_allowed', clientAddress: '127.0.0.1' })])
  })

  it('judges the address the trusted proxy saw, IPv4 and IPv6 alike', async () => {
    vi.stubEnv('TRUSTED_PROXY_HOPS', '1')
    try {
      const { token } = await portalKey({ allowedAddresses: ['203.0.113.0/24', '2001:db8::/32'] })
      expect((await read(token, { 'X-Forwarded-For': '203.0.113.77' })).status).toBe(200)
      expect((await read(token, { 'X-Forwarded-For': '2001:db8:aa::1' })).status).toBe(200)
      // A client's own entries to the left of the proxy's are not trusted.
      const outside = await read(token, { 'X-Forwarded-For': '203.0.113.77, 2001:db9::1' })
      expect(outside.status).toBe(403)
      expect(outside.body.detail).toMatch(/^Requests from 2001:db9::1 may not use this API key/)
      expect((await read(token, { 'X-Forwarded-For': '198.51.100.1' })).body.detail).toMatch(/^Requests from 198\.51\.100\.1 /)
    } finally {
      vi.unstubAllEnvs()
    }
  })

  it('refuses ranges that are not ranges, and changing the allowlist applies to the next request and is audited', async () => {
    const refused = await portalKey({ allowedAddresses: '10.0.0.1/8, example.com' }).catch((error: TRPCError) => error)
    expect(((refused as TRPCError).cause as unknown as { fieldErrors: { field: string; message: string }[] }).fieldErrors).toEqual([
      { field: 'allowedAddresses', message: '“10.0.0.1/8” has bits set after its /8 prefix; did you mean 10.0.0.0/8?' },
      { field: 'allowedAddresses', message: '“example.com” is not an IPv4 or IPv6 address or CIDR range.' },
    ])
    const { token, key } = await portalKey({})
    expect((await read(token)).status).toBe(200)
    await portal().apiKeys.setAllowlist({ id: key.id, allowedAddresses: ['198.51.100.0/24'] })
    expect((await read(token)).status).toBe(403)
    await portal().apiKeys.setAllowlist({ id: key.id, allowedAddresses: ['127.0.0.1'] })
    expect((await read(token)).status).toBe(200)
    expect((await auditOf(key.id)).map((entry) => [entry.action, entry.metadata])).toEqual([
      ['api_token.created', expect.objectContaining({ allowedAddresses: [], expiresAt: null })],
      ['api_token.allowlist_changed', expect.objectContaining({ from: [], to: ['198.51.100.0/24'] })],
      ['api_token.allowlist_changed', expect.objectContaining({ from: ['198.51.100.0/24'], to: ['127.0.0.1'] })],
    ])
  })
})

describe('rolling a key', () => {
  it.each([
    ['1h', 3_600_000],
    ['24h', 86_400_000],
    ['7d', 7 * 86_400_000],
  ] as const)('with overlap %s: the old secret works until the overlap lapses, then is refused naming the roll', async (overlap, overlapMs) => {
    const { token: oldSecret, key } = await portalKey({ name: `Roll ${overlap}` })
    expect((await read(oldSecret)).status).toBe(200)
    const rolled = await portal().apiKeys.roll({ id: key.id, overlap })
    expect(rolled.token).not.toBe(oldSecret)
    expect(rolled.key).toMatchObject({ id: key.id, name: key.name, scopes: key.scopes })
    expect(new Date(rolled.key.previousSecretWorksUntil!).getTime() - new Date(rolled.key.rolledAt!).getTime()).toBe(overlapMs)
    expect((await read(oldSecret)).status).toBe(200)
    expect((await read(rolled.token)).status).toBe(200)
    expect((await portal().apiKeys.list()).find((listed) => listed.id === key.id)?.previousSecretWorksUntil).toBe(rolled.key.previousSecretWorksUntil)

    // The overlap lapses (moved into the past rather than waited for).
    await db.apiToken.update({ where: { id: key.id }, data: { previousTokenExpiresAt: new Date(Date.now() - 1) } })
    forgetCachedTokens()
    const lapsed = await read(oldSecret)
    expect(lapsed.status).toBe(401)
    const worksUntil = (await db.apiToken.findUniqueOrThrow({ where: { id: key.id } })).previousTokenExpiresAt!.toISOString()
    expect(lapsed.body.detail).toBe(`This secret was replaced when its key was rolled at ${rolled.key.rolledAt} and stopped working at ${worksUntil}. Use the key's new secret.`)
    expect((await read(rolled.token)).status).toBe(200)
    expect((await portal().apiKeys.get({ id: key.id })).previousSecretWorksUntil).toBeNull()
    const log = await logOf(key.id)
    expect(log[1]).toMatchObject({ status: 401, problemCode: 'unauthenticated' })
  })

  it('with overlap none: the old secret is refused on the very next request, though its lookup was cached', async () => {
    const { token: oldSecret, key } = await portalKey({ name: 'Roll none' })
    expect((await read(oldSecret)).status).toBe(200)
    const rolled = await portal().apiKeys.roll({ id: key.id, overlap: 'none' })
    const refused = await read(oldSecret)
    expect(refused.status).toBe(401)
    expect(refused.body.detail).toMatch(new RegExp(`^This secret was replaced when its key was rolled at ${rolled.key.rolledAt!.replace(/\./g, '\\.')} and stopped working at `))
    expect((await read(rolled.token)).status).toBe(200)
    expect(rolled.key.previousSecretWorksUntil).toBeNull()
    const entries = await auditOf(key.id)
    expect(entries.at(-1)).toMatchObject({ action: 'api_token.rolled', metadata: expect.objectContaining({ overlap: 'none', previousPrefix: key.prefix, prefix: rolled.key.prefix }) })
    expect(JSON.stringify(entries)).not.toContain(rolled.token)
  })

  it('keeps only one old secret: rolling again ends the first one at once', async () => {
    const { token: first, key } = await portalKey({ name: 'Roll twice' })
    const second = await portal().apiKeys.roll({ id: key.id, overlap: '24h' })
    const third = await portal().apiKeys.roll({ id: key.id, overlap: '24h' })
    expect((await read(first)).status).toBe(401)
    expect((await read(second.token)).status).toBe(200)
    expect((await read(third.token)).status).toBe(200)
  })

  it('refuses to roll a revoked key, and a key of another newsroom is not found', async () => {
    const { key } = await portalKey({ name: 'Revoked' })
    await portal().apiKeys.revoke({ id: key.id })
    await expect(portal().apiKeys.roll({ id: key.id, overlap: 'none' })).rejects.toMatchObject({ code: 'CONFLICT', message: 'The key “Revoked” was revoked; create a new key instead.' })
    const other = await createTestTenant()
    const foreign = await createApiToken(other.actor('admin'), { name: 'Foreign', scopes: ['articles:read'] })
    await expect(portal().apiKeys.roll({ id: foreign.summary.id, overlap: 'none' })).rejects.toMatchObject({ code: 'NOT_FOUND' })
    await expect(portal().apiKeys.rename({ id: foreign.summary.id, name: 'Mine now' })).rejects.toMatchObject({ code: 'NOT_FOUND' })
  })
})

describe('renaming a key', () => {
  it('changes the name the list shows, keeps the secret working, and is audited', async () => {
    const { token, key } = await portalKey({ name: 'Wire importr' })
    const renamed = await portal().apiKeys.rename({ id: key.id, name: '  Wire importer  ' })
    expect(renamed.name).toBe('Wire importer')
    expect((await portal().apiKeys.list()).find((listed) => listed.id === key.id)?.name).toBe('Wire importer')
    expect((await read(token)).status).toBe(200)
    expect((await auditOf(key.id)).at(-1)).toMatchObject({ action: 'api_token.renamed', metadata: expect.objectContaining({ from: 'Wire importr', to: 'Wire importer' }) })
    await expect(portal().apiKeys.rename({ id: key.id, name: ' ' })).rejects.toMatchObject({ code: 'UNPROCESSABLE_CONTENT' })
    await expect(portal('editor').apiKeys.rename({ id: key.id, name: 'Editor was here' })).rejects.toMatchObject({ code: 'FORBIDDEN' })
  })
})
