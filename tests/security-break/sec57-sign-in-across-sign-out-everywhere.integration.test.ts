import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { passkeyRegistrationOptions, passkeySignInOptions, registerPasskey } from '../../lib/auth/passkeys.ts'
import { endOtherPortalSessions } from '../../lib/auth/portal-sessions.ts'
import { db } from '../../lib/db/client.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { memberOfTheirOwn } from '../support/member-of-their-own.ts'
import { nextAuthBrowser } from '../support/next-auth-browser.ts'
import { holdLock, waitForLockWaiters } from '../support/row-locks.ts'
import { SoftwarePasskey } from '../support/software-authenticator.ts'

// sec57: a sign-in whose proof began before the member's sign-in methods changed starts no
// session (startPortalSession reads credentialsChangedAt under the member's factor lock, break55).
// An admin's reset holds that lock until it commits; "sign out everywhere else" took no lock. A
// passkey sign-in checked just before the owner pressed it, whose session's insert lands after
// the end's update of the sessions, read credentialsChangedAt before the end committed and kept
// its session: the owner was told "0 other sessions signed out" and the list shows one more.
// Parked here at the session's insert (its foreign key waits on the member's row, held), as
// break55-sign-in-across-reset does for the reset.

const publicUrl = 'https://cms.newsroom.example'
let newsroom: TestTenant

beforeAll(async () => {
  vi.stubEnv('NEXTAUTH_URL', publicUrl)
  vi.stubEnv('WEBHOOK_SECRET_KEY', 'sec57-sign-in-across-sign-out-key')
  newsroom = await createTestTenant()
})
afterAll(() => vi.unstubAllEnvs())

describe('a passkey sign-in that straddles "sign out everywhere else"', () => {
  it('leaves no session but the one that asked', async () => {
    const { member, id, sessions } = await memberOfTheirOwn(newsroom, 's57i', { sessions: { owner: 'Owner laptop' } })
    const sudo = { id: sessions.owner, reauthenticatedAt: new Date() }
    const key = new SoftwarePasskey({ origin: publicUrl, rpId: 'cms.newsroom.example' })
    await registerPasskey(member, sudo, { name: 'Synced key', response: key.register(await passkeyRegistrationOptions(member, sudo)) })

    // Someone else's sign-in with the passkey: its assertion checks out, then its session's insert waits (the member's row held).
    const memberRow = await holdLock('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [id])
    const other = nextAuthBrowser({ userAgent: 'Other browser', address: '203.0.113.66' })
    const signIn = other.signInWithPasskey(key.assert(await passkeySignInOptions()))
    signIn.catch(() => undefined)
    await waitForLockWaiters(1)
    // The owner signs out everywhere else meanwhile: it ends the sessions it finds, then waits (on the member's row, or the lock).
    const end = endOtherPortalSessions(member, sessions.owner)
    end.catch(() => undefined)
    await waitForLockWaiters(2)
    await memberRow.release()
    await Promise.allSettled([signIn, end])
    await expect(end).resolves.toBeTypeOf('number')
    // What the owner was told ("every other session signed out") must hold once both are done.
    expect(await db.portalSession.findMany({ where: { userId: id, endedAt: null }, select: { userAgent: true } })).toEqual([{ userAgent: 'Owner laptop' }])
  }, 60_000)
})
