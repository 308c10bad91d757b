import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { changeOwnPassword } from '../../lib/auth/change-password.ts'
import { totpCode, totpStep } from '../../lib/auth/totp.ts'
import { db } from '../../lib/db/client.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { appSecret, memberOfTheirOwn } from '../support/member-of-their-own.ts'
import { nextAuthBrowser } from '../support/next-auth-browser.ts'
import { duringUncommittedChange } from '../support/row-locks.ts'

// break58: a password change stamps credentialsChangedAt with its own clock *before* it commits
// (endMemberSessions, then the audit entry, then COMMIT). A sign-in with the OLD password that
// starts in that window takes provedSince after the stamp, reads the old password hash (the new
// one is not committed yet), and then waits at the member's factor lock; when the change commits,
// startPortalSession finds credentialsChangedAt <= provedSince and starts a session. The attacker
// who knew the old password is signed in after the member changed it, and stays signed in.
// The change is parked between its stamp and its commit by holding the audit table, which it
// writes last.

const password = 'test-password'
const newPassword = 'a-new-password-for-break58'
let newsroom: TestTenant

beforeAll(async () => {
  vi.stubEnv('NEXTAUTH_URL', 'https://cms.newsroom.example')
  newsroom = await createTestTenant()
})
afterAll(() => vi.unstubAllEnvs())

const liveSessions = async (userId: string) => (await db.portalSession.findMany({ where: { userId, endedAt: null }, select: { userAgent: true }, orderBy: { userAgent: 'asc' } })).map((s) => s.userAgent)

/** The member's password change, parked after it stamped credentialsChangedAt and before it commits, while `during` runs. */
async function duringUncommittedPasswordChange<T>(member: Parameters<typeof changeOwnPassword>[0], sessionId: string, during: () => Promise<T>) {
  const { changed, during: signedIn } = await duringUncommittedChange(() => changeOwnPassword(member, { id: sessionId, reauthenticatedAt: new Date() }, { currentPassword: password, newPassword }, '198.51.100.10'), during)
  return { changed, signedIn }
}

describe('a sign-in with the old password while a password change commits', () => {
  it('password only: no session but the owner\'s', async () => {
    const { member, id, email, sessions } = await memberOfTheirOwn(newsroom, 'b58a', { sessions: { owner: 'Owner laptop' } })
    const attacker = nextAuthBrowser({ userAgent: 'Attacker', address: '203.0.113.58' })
    const { changed, signedIn } = await duringUncommittedPasswordChange(member, sessions.owner, () => attacker.signIn(email, password))
    expect(changed).toMatchObject({ status: 'fulfilled' })
    expect(signedIn).toMatchObject({ status: 'fulfilled', value: false })
    expect(await liveSessions(id)).toEqual(['Owner laptop'])
    // The old password no longer works at all.
    expect(await nextAuthBrowser({ userAgent: 'Attacker again', address: '203.0.113.58' }).signIn(email, password)).toBe(false)
  }, 60_000)

  it('two steps, the password step in the window and the code after the commit: no session', async () => {
    const { member, id, email, sessions } = await memberOfTheirOwn(newsroom, 'b58b', { sessions: { owner: 'Owner laptop' }, app: 'confirmed' })
    const attacker = nextAuthBrowser({ userAgent: 'Attacker', address: '203.0.113.58' })
    // The password step takes no lock: it ends (with its pending token) while the change waits.
    const { changed, signedIn } = await duringUncommittedPasswordChange(member, sessions.owner, () => attacker.step('credentials', { email, password }))
    expect(changed).toMatchObject({ status: 'fulfilled' })
    const pendingToken = /^SecondFactorRequired:([^:]+):/.exec((signedIn as PromiseFulfilledResult<{ error: string | null }>).value?.error ?? '')?.[1]
    expect(pendingToken).toBeTruthy()
    const second = await attacker.step('second-factor', { pendingToken: pendingToken!, code: totpCode(appSecret, totpStep()) })
    expect(second.signedIn).toBe(false)
    expect(await liveSessions(id)).toEqual(['Owner laptop'])
  }, 60_000)

  it('the member\'s last change stamped by an instance whose clock runs ahead: still no session but the owner\'s', async () => {
    // credentialsChangedAt is stamped with the clock of whichever instance made the change; one
    // ten minutes ahead stamped the last. This instance's change then stamped an earlier time: the
    // column went back, below what the sign-in had read, and the old password's session stayed.
    const { member, id, email, sessions } = await memberOfTheirOwn(newsroom, 'b58f', { sessions: { owner: 'Owner laptop' } })
    await db.user.update({ where: { id }, data: { credentialsChangedAt: new Date(Date.now() + 10 * 60_000) } })
    const attacker = nextAuthBrowser({ userAgent: 'Attacker', address: '203.0.113.58' })
    const { changed, signedIn } = await duringUncommittedPasswordChange(member, sessions.owner, () => attacker.signIn(email, password))
    expect(changed).toMatchObject({ status: 'fulfilled' })
    expect(signedIn).toMatchObject({ status: 'fulfilled', value: false })
    expect(await liveSessions(id)).toEqual(['Owner laptop'])
  }, 60_000)

  it('with nothing racing it, the new password signs in', async () => {
    const { member, id, email, sessions } = await memberOfTheirOwn(newsroom, 'b58c', { sessions: { owner: 'Owner laptop' } })
    await changeOwnPassword(member, { id: sessions.owner, reauthenticatedAt: new Date() }, { currentPassword: password, newPassword }, '198.51.100.10')
    expect(await nextAuthBrowser({ userAgent: 'Member phone', address: '198.51.100.11' }).signIn(email, newPassword)).toBe(true)
    expect(await liveSessions(id)).toEqual(['Member phone', 'Owner laptop'])
  }, 60_000)
})
