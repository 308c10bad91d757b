import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { passkeyRegistrationOptions, passkeySignInOptions, registerPasskey } from '../../lib/auth/passkeys.ts'
import { resetSecondFactors } from '../../lib/auth/two-factor.ts'
import { db } from '../../lib/db/client.ts'
import { tenantDb } from '../../lib/tenancy/tenant-db.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { memberOfTheirOwn } from '../support/member-of-their-own.ts'
import { nextAuthBrowser } from '../support/next-auth-browser.ts'
import { holdLock, waitForLockWaiters } from '../support/row-locks.ts'
import { SoftwarePasskey } from '../support/software-authenticator.ts'

// break55: an admin's reset of a member's factors promises that every session of theirs ends
// (whoever holds the lost phone or key may hold a session too). A sign-in with the passkey that
// was verified just before the reset, and starts its session just after the reset ended the
// member's sessions, keeps a live session made with a passkey the reset removed: nothing
// between the assertion's check and the session's insert looks at the reset. Parked here at the
// session's insert (its foreign key waits on the member's row), with the reset run meanwhile.

const publicUrl = 'https://cms.newsroom.example'
const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0'
let newsroom: TestTenant

beforeAll(async () => {
  vi.stubEnv('NEXTAUTH_URL', publicUrl)
  vi.stubEnv('WEBHOOK_SECRET_KEY', 'break55-sign-in-across-reset-key')
  newsroom = await createTestTenant()
})
afterAll(() => vi.unstubAllEnvs())

describe('a passkey sign-in that straddles an admin\'s reset', () => {
  it('leaves no live session made with the removed passkey', async () => {
    const { member, id, sessions } = await memberOfTheirOwn(newsroom, 'b55s', { sessions: { sudo: firefox } })
    const sudo = { id: sessions.sudo, reauthenticatedAt: new Date() }
    const lostKey = new SoftwarePasskey({ origin: publicUrl, rpId: 'cms.newsroom.example' })
    await registerPasskey(member, sudo, { name: 'Lost key', response: lostKey.register(await passkeyRegistrationOptions(member, sudo)) })

    // The finder's sign-in: its assertion checks out, then its session's insert waits (the member's row held).
    const memberRow = await holdLock('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [id])
    const finder = nextAuthBrowser({ userAgent: 'Finder', address: '203.0.113.66' })
    const signIn = finder.signInWithPasskey(lostKey.assert(await passkeySignInOptions()))
    signIn.catch(() => undefined)
    await waitForLockWaiters(1)
    // The admin's reset meanwhile: it removes the passkey and ends the sessions it finds, then waits on the same row.
    const admin = { tenant: { id: newsroom.tenant.id }, user: { id: newsroom.users.admin.id } } as Parameters<typeof resetSecondFactors>[1]
    const reset = tenantDb(newsroom.tenant.id).$transaction((tx) => resetSecondFactors(tx, admin, id), { timeout: 20_000 })
    reset.catch(() => undefined)
    await waitForLockWaiters(2)
    await memberRow.release()
    await Promise.allSettled([signIn, reset])
    await expect(reset).resolves.toMatchObject({ removed: ['passkeys'] })
    expect(await db.passkey.count({ where: { userId: id } })).toBe(0)
    // What the admin was told ("sessions ended") must hold once both are done.
    expect(await db.portalSession.findMany({ where: { userId: id, endedAt: null }, select: { userAgent: true } })).toEqual([])
  }, 60_000)
})
