import { fetchRequestHandler } from '@trpc/server/adapters/fetch'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { loadSsoLogin } from '../../lib/auth/sso-connection.ts'
import { db } from '../../lib/db/client.ts'
import type { PortalContext } from '../../lib/trpc/init.ts'
import { appRouter } from '../../lib/trpc/routers/app-router.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { internalTextIn } from '../support/internal-text.ts'

// Settings → Single sign-on saved as the browser saves it (POST /api/trpc/sso.save), with the
// secret field left empty, as its hint says to: the stored secret stays (issue 46, point 1).

let newsroom: TestTenant
const secret = 'the-identity-providers-secret-0123'

async function save(input: Record<string, unknown>): Promise<{ status: number; body: { result?: { data: Record<string, unknown> }; error?: { message: string; data: { fieldErrors: { field: string; message: string }[] | null } } }; text: string }> {
  const admin = newsroom.users.admin
  const context: PortalContext = {
    member: { id: admin.id, email: admin.email, name: 'Admin', role: 'admin', tenantId: newsroom.tenant.id, tenantName: newsroom.tenant.name },
    tenant: newsroom.actor('admin').tenant,
    session: { id: 'ses_sso', reauthenticatedAt: new Date() },
    clientAddress: '127.0.0.1',
    requestId: 'req_sso',
  }
  const request = new Request('http://portal.test/api/trpc/sso.save', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(input) })
  const response = await fetchRequestHandler({ endpoint: '/api/trpc', req: request, router: appRouter, createContext: async () => context })
  const text = await response.text()
  return { status: response.status, body: JSON.parse(text), text }
}

const settings = { displayName: 'Example IdP', issuer: 'https://login.example.org', clientId: 'newsroom-portal', enabled: true, requireSso: false, jitEmailDomain: '' }

beforeAll(async () => {
  vi.stubEnv('WEBHOOK_SECRET_KEY', 'sso-save-test-key')
  newsroom = await createTestTenant()
})

afterAll(() => {
  vi.unstubAllEnvs()
})

describe('saving single sign-on settings', () => {
  it('the first save without a secret is a 422 on the secret field, and nothing is stored', async () => {
    const answer = await save({ ...settings, clientSecret: '' })
    expect(answer.status).toBe(422)
    expect(answer.body.error?.data.fieldErrors).toEqual([{ field: 'clientSecret', message: 'Enter the client secret your identity provider issued.' }])
    expect(await db.ssoConnection.count({ where: { tenantId: newsroom.tenant.id } })).toBe(0)
  })

  it('then saves with the secret, and every later save with the secret left empty keeps it: require SSO, just-in-time creation, a rename, switching it off', async () => {
    expect((await save({ ...settings, clientSecret: secret })).status).toBe(200)
    const changes = [{ requireSso: true }, { jitEmailDomain: 'example.org' }, { displayName: 'Okta' }, { enabled: false }, { enabled: true }]
    let current: Record<string, unknown> = { ...settings }
    for (const change of changes) {
      current = { ...current, ...change }
      const answer = await save({ ...current, clientSecret: '' })
      expect(internalTextIn(answer.text)).toBeNull()
      expect(answer.status).toBe(200)
      expect(answer.body.result?.data).toMatchObject({ ...change, clientSecretSet: true })
    }
    // The sign-in still uses the secret typed the first time.
    expect(await loadSsoLogin(newsroom.tenant.slug)).toMatchObject({ displayName: 'Okta', requireSso: true, jitEmailDomain: 'example.org', clientSecret: secret })
    // The audit names what changed, and no save without a secret claims to have changed it.
    const audits = await db.auditEntry.findMany({ where: { tenantId: newsroom.tenant.id, action: 'sso.updated' }, orderBy: { createdAt: 'asc' } })
    expect(audits.map((entry) => (entry.metadata as { changed: string[] }).changed)).toEqual([
      ['displayName', 'issuer', 'clientId', 'enabled', 'requireSso', 'jitEmailDomain', 'clientSecret'],
      ['requireSso'],
      ['jitEmailDomain'],
      ['displayName'],
      ['enabled'],
      ['enabled'],
    ])
  })

  it('a new secret given later replaces the stored one', async () => {
    expect((await save({ ...settings, clientSecret: 'a-new-secret-from-the-idp-9876' })).status).toBe(200)
    expect((await loadSsoLogin(newsroom.tenant.slug))?.clientSecret).toBe('a-new-secret-from-the-idp-9876')
  })
})
