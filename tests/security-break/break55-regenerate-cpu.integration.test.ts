import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { regenerateRecoveryCodes } from '../../lib/auth/two-factor.ts'
import { DomainError } from '../../lib/errors.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { memberOfTheirOwn } from '../support/member-of-their-own.ts'

// break55: each regeneration of recovery codes is ten scrypts (16 MB each; 10 took 570 ms of CPU
// on this 2-core machine), spent before anything can refuse it, and nothing bounds how many one
// member starts: no rate limit covers portal mutations, and sec55 moved the hashing before the
// member's lock, so requests at once all hash. One member with an app and a session confirmed in
// the last ten minutes keeps both cores (and libuv's four threads, which the whole server shares)
// busy with a loop of cheap POSTs. A member's regenerations should be bounded (at most one
// hashing at a time, or a few a minute), the rest refused with a 4xx before any hashing.

const { scryptCalls, countingScrypt } = await vi.hoisted(() => import('../support/scrypt-calls.ts'))
vi.mock('node:crypto', countingScrypt)

let newsroom: TestTenant

beforeAll(async () => {
  vi.stubEnv('WEBHOOK_SECRET_KEY', 'break55-regenerate-cpu-key')
  newsroom = await createTestTenant()
})
afterAll(() => vi.unstubAllEnvs())

describe('regenerating recovery codes in a burst', () => {
  it('eight at once from one member: at most two regenerations\' worth of scrypt, the rest refused with a 4xx', async () => {
    const { member, sessions } = await memberOfTheirOwn(newsroom, 'b55g', { app: 'confirmed', sessions: { tab: 'Firefox' } })
    const session = { id: sessions.tab, reauthenticatedAt: new Date() }
    scryptCalls.count = 0
    const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => regenerateRecoveryCodes(member, session)))
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled').length).toBeGreaterThanOrEqual(1)
    for (const outcome of outcomes) if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(DomainError)
    expect(scryptCalls.count).toBeLessThanOrEqual(20)
  }, 60_000)
})
