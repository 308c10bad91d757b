import { beforeAll, afterAll, describe, expect, it, vi } from 'vitest'
import { startPortalSession } from '../../lib/auth/portal-sessions.ts'
import { confirmTotpEnrolment } from '../../lib/auth/two-factor.ts'
import { totpCode, totpStep } from '../../lib/auth/totp.ts'
import { db } from '../../lib/db/client.ts'
import { DomainError } from '../../lib/errors.ts'
import { encryptSecret } from '../../lib/security/secret-box.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// break56: 7fe6b74 bounds a member's recovery-code regenerations (two a minute) because each is
// ten scrypts spent before anything can refuse it (break55). Confirming an authenticator app
// spends the same ten scrypts (prepareRecoveryCodes) after only the code check, and the code
// check does not consume the step: the member knows the key (they scanned it), so eight
// confirmations at once with the one valid code all hash, and only one can confirm. The bound
// that regenerating has is bypassed by the confirmation (and by start -> confirm -> remove loops,
// each of which refreshes sudo mode itself).

const scryptCalls = vi.hoisted(() => ({ count: 0 }))
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>()
  const scrypt = (...args: unknown[]) => {
    scryptCalls.count += 1
    return (actual.scrypt as (...a: unknown[]) => void)(...args)
  }
  return { ...actual, scrypt, default: { ...actual, scrypt } }
})

type Member = Parameters<typeof confirmTotpEnrolment>[0]
let newsroom: TestTenant

beforeAll(async () => {
  vi.stubEnv('WEBHOOK_SECRET_KEY', 'break56-confirm-cpu-key')
  newsroom = await createTestTenant()
})
afterAll(() => vi.unstubAllEnvs())

describe('confirming an authenticator app in a burst', () => {
  it("eight at once with the one valid code: one confirms, at most two regenerations' worth of scrypt", async () => {
    const id = newsroom.users.writer.id
    const secret = 'JBSWY3DPEHPK3PXP'
    await db.totpFactor.create({ data: { userId: id, tenantId: newsroom.tenant.id, secretEncrypted: encryptSecret(secret), confirmedAt: null } })
    const member = { tenant: { id: newsroom.tenant.id, name: 'Break56 News' }, user: { id } } as Member
    const session = { id: await startPortalSession({ id, tenantId: newsroom.tenant.id }, { userAgent: 'Firefox', address: '198.51.100.56' }), reauthenticatedAt: new Date() }
    const code = totpCode(secret, totpStep())
    scryptCalls.count = 0
    const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => confirmTotpEnrolment(member, session, code)))
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1)
    for (const outcome of outcomes) if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(DomainError)
    expect(scryptCalls.count).toBeLessThanOrEqual(20)
  }, 60_000)
})
