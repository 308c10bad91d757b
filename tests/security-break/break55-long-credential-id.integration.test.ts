import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { passkeyRegistrationOptions, registerPasskey } from '../../lib/auth/passkeys.ts'
import { startPortalSession } from '../../lib/auth/portal-sessions.ts'
import { registerPasskeySchema } from '../../lib/auth/security-schemas.ts'
import { db } from '../../lib/db/client.ts'
import { DomainError } from '../../lib/errors.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { internalTextIn } from '../support/internal-text.ts'
import { SoftwarePasskey } from '../support/software-authenticator.ts'

// break55: a passkey's credential id is whatever the authenticator (or a script posing as one:
// attestation "none" proves nothing about it) puts in its answer, up to the schema's 16,384
// base64url characters. WebAuthn caps a credential id at 1023 bytes; the server did not, and
// passkeys.credential_id has a unique b-tree index, whose entries PostgreSQL caps near 2.7 kB.
// An id of 3,000 random bytes passed the schema and the library's checks and then failed at the
// insert: a 500 carrying PostgreSQL's words, where a clear refusal belongs.

const publicUrl = 'https://cms.newsroom.example'
type Actor = Parameters<typeof registerPasskey>[0]
let newsroom: TestTenant

beforeAll(async () => {
  vi.stubEnv('NEXTAUTH_URL', publicUrl)
  newsroom = await createTestTenant()
})
afterAll(() => vi.unstubAllEnvs())

describe('a passkey with an over-long credential id', () => {
  it('is refused with a clear 4xx, not a database error', async () => {
    const member = { tenant: { id: newsroom.tenant.id, name: 'Break55 News' }, user: { id: newsroom.users.writer.id } } as Actor
    const sessionId = await startPortalSession({ id: member.user.id, tenantId: member.tenant.id }, { userAgent: 'Firefox', address: '198.51.100.55' }, new Date())
    const session = { id: sessionId, reauthenticatedAt: new Date() }
    const key = new SoftwarePasskey({ origin: publicUrl, rpId: 'cms.newsroom.example' })
    Object.defineProperty(key, 'credentialId', { value: randomBytes(3000) })
    const input = registerPasskeySchema.parse({ name: 'Long', response: key.register(await passkeyRegistrationOptions(member, session)) })
    const [outcome] = await Promise.allSettled([registerPasskey(member, session, input)])
    expect(outcome!.status).toBe('rejected')
    const reason = (outcome as PromiseRejectedResult).reason as Error
    expect(reason).toBeInstanceOf(DomainError)
    expect(internalTextIn(reason.message)).toBeNull()
    expect(await db.passkey.count({ where: { userId: member.user.id } })).toBe(0)
  }, 30_000)
})
