import { beforeAll, afterAll, describe, expect, it, vi } from 'vitest'
import { confirmTotpEnrolment } from '../../lib/auth/two-factor.ts'
import { totpCode, totpStep } from '../../lib/auth/totp.ts'
import { DomainError } from '../../lib/errors.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { appSecret, memberOfTheirOwn } from '../support/member-of-their-own.ts'

// break56: 7fe6b74 bounds a member's recovery-code regenerations (two a minute) because each is
// ten scrypts spent before anything can refuse it (break55). Confirming an authenticator app
// spends the same ten scrypts (prepareRecoveryCodes) after only the code check, and the code
// check does not consume the step: the member knows the key (they scanned it), so eight
// confirmations at once with the one valid code all hash, and only one can confirm. The bound
// that regenerating has is bypassed by the confirmation (and by start -> confirm -> remove loops,
// each of which refreshes sudo mode itself).

const { scryptCalls, countingScrypt } = await vi.hoisted(() => import('../support/scrypt-calls.ts'))
vi.mock('node:crypto', countingScrypt)

let newsroom: TestTenant

beforeAll(async () => {
  vi.stubEnv('WEBHOOK_SECRET_KEY', 'break56-confirm-cpu-key')
  newsroom = await createTestTenant()
})
afterAll(() => vi.unstubAllEnvs())

describe('confirming an authenticator app in a burst', () => {
  it("eight at once with the one valid code: one confirms, at most two regenerations' worth of scrypt", async () => {
    const { member, sessions } = await memberOfTheirOwn(newsroom, 'b56c', { app: 'unconfirmed', sessions: { tab: 'Firefox' } })
    const session = { id: sessions.tab, reauthenticatedAt: new Date() }
    const code = totpCode(appSecret, totpStep())
    scryptCalls.count = 0
    const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => confirmTotpEnrolment(member, session, code)))
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1)
    for (const outcome of outcomes) if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(DomainError)
    expect(scryptCalls.count).toBeLessThanOrEqual(20)
  }, 60_000)
})
