import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { changeOwnPassword } from '../../lib/auth/change-password.ts'
import { passkeyRegistrationOptions, passkeySignInOptions, registerPasskey } from '../../lib/auth/passkeys.ts'
import { endOtherPortalSessions } from '../../lib/auth/portal-sessions.ts'
import { db } from '../../lib/db/client.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { memberOfTheirOwn } from '../support/member-of-their-own.ts'
import { nextAuthBrowser } from '../support/next-auth-browser.ts'
import { duringUncommittedChange } from '../support/row-locks.ts'
import { SoftwarePasskey } from '../support/software-authenticator.ts'

// break58: as a password sign-in did (break58-old-password-before-commit), a passkey sign-in
// judged itself from the clock when its request arrived, while a change that ends the member's
// sessions stamps credentialsChangedAt before it commits. A passkey sign-in (a synced passkey on
// someone else's device) that began in that window kept its session after "sign out everywhere
// else" or a password change had ended every other: the owner pressed it, and the stranger's new
// session was in the list. The change is parked between its stamp and its commit by holding the
// audit table, which it writes last.

const publicUrl = 'https://cms.newsroom.example'
const password = 'test-password'
let newsroom: TestTenant
beforeAll(async () => {
  vi.stubEnv('NEXTAUTH_URL', publicUrl)
  newsroom = await createTestTenant()
})
afterAll(() => vi.unstubAllEnvs())

const liveSessions = async (userId: string) => (await db.portalSession.findMany({ where: { userId, endedAt: null }, select: { userAgent: true }, orderBy: { userAgent: 'asc' } })).map((s) => s.userAgent)

async function withPasskey(tag: string) {
  const own = await memberOfTheirOwn(newsroom, tag, { sessions: { owner: 'Owner laptop', tablet: 'Old tablet' } })
  const sudo = { id: own.sessions.owner, reauthenticatedAt: new Date() }
  const key = new SoftwarePasskey({ origin: publicUrl, rpId: 'cms.newsroom.example' })
  await registerPasskey(own.member, sudo, { name: 'Synced key', response: key.register(await passkeyRegistrationOptions(own.member, sudo)) })
  return { ...own, key }
}

/** `change`, parked after it stamped credentialsChangedAt and before its commit, while a passkey sign-in with `key` runs until it waits for a lock (or ends). */
async function passkeySignInDuringUncommitted(key: SoftwarePasskey, change: () => Promise<unknown>) {
  const assertion = key.assert(await passkeySignInOptions())
  const { changed, during: signedIn } = await duringUncommittedChange(change, () => nextAuthBrowser({ userAgent: 'Stranger', address: '203.0.113.58' }).signInWithPasskey(assertion))
  return { changed, signedIn }
}

describe('a passkey sign-in that starts while a change ending the member\'s sessions commits', () => {
  it('"sign out everywhere else": no session but the one that asked, and the person is told to sign in again', async () => {
    const { member, id, sessions, key } = await withPasskey('b58p')
    const { changed, signedIn } = await passkeySignInDuringUncommitted(key, () => endOtherPortalSessions(member, sessions.owner))
    expect(changed).toMatchObject({ status: 'fulfilled', value: 1 })
    expect(signedIn).toMatchObject({ status: 'fulfilled', value: { ok: false } })
    expect((signedIn as PromiseFulfilledResult<{ error: string | null }>).value.error).toMatch(/^PasskeyRefused:.*Sign in again/)
    expect(await liveSessions(id)).toEqual(['Owner laptop'])
  }, 60_000)

  it('a password change: no session but the one that asked', async () => {
    const { member, id, sessions, key } = await withPasskey('b58q')
    const { changed, signedIn } = await passkeySignInDuringUncommitted(key, () => changeOwnPassword(member, { id: sessions.owner, reauthenticatedAt: new Date() }, { currentPassword: password, newPassword: 'another-password-b58' }, '198.51.100.10'))
    expect(changed).toMatchObject({ status: 'fulfilled' })
    expect(signedIn).toMatchObject({ status: 'fulfilled', value: { ok: false } })
    expect(await liveSessions(id)).toEqual(['Owner laptop'])
  }, 60_000)

  it('with nothing racing it, the passkey signs in', async () => {
    const { id, key } = await withPasskey('b58r')
    const answer = await nextAuthBrowser({ userAgent: 'Phone', address: '198.51.100.12' }).signInWithPasskey(key.assert(await passkeySignInOptions()))
    expect(answer).toEqual({ ok: true, error: null })
    expect(await liveSessions(id)).toEqual(['Old tablet', 'Owner laptop', 'Phone'])
  }, 60_000)
})
