import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { changeOwnPassword } from '../../lib/auth/change-password.ts'
import { passkeyRegistrationOptions, passkeySignInOptions, registerPasskey } from '../../lib/auth/passkeys.ts'
import { endOtherPortalSessions } from '../../lib/auth/portal-sessions.ts'
import { totpCode, totpStep } from '../../lib/auth/totp.ts'
import { resetSecondFactors } from '../../lib/auth/two-factor.ts'
import { db } from '../../lib/db/client.ts'
import { tenantDb } from '../../lib/tenancy/tenant-db.ts'
import { deactivateUser } from '../../lib/users/manage-users.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { appSecret, memberOfTheirOwn } from '../support/member-of-their-own.ts'
import { nextAuthBrowser } from '../support/next-auth-browser.ts'
import { holdLock, waitForLockWaiters } from '../support/row-locks.ts'
import { SoftwarePasskey } from '../support/software-authenticator.ts'

// sec58: a sign-in starts its session only if nothing that ends the member's sessions (a password
// change, a deactivation, "sign out everywhere else", an admin's reset) happened after its proof
// began (startPortalSession, under the member's factor lock). Three gaps:
// - A password change and a deactivation ended the sessions without that lock and (the password
//   change) without moving credentialsChangedAt: a sign-in with the OLD password, checked just
//   before, whose session was inserted just after the sessions were ended, kept a live session
//   (the attacker who had the old password stayed in); a deactivated member kept a live session.
// - A password-only sign-in passed no provedSince at all: nothing stopped it racing "sign out
//   everywhere else" or a reset.
// - A two-step sign-in's proof begins at its password; the second step judged from its own start,
//   so a password step before a password change and a code step after it signed in.
// Two ways to park a sign-in: after its password was checked and before its session starts (the
// newsroom's SSO settings, which it reads in between, locked by the test), or inside
// startPortalSession (the member's factor lock held by the test).

const publicUrl = 'https://cms.newsroom.example'
const password = 'test-password'
const newPassword = 'a-new-password-for-sec58'
let newsroom: TestTenant

beforeAll(async () => {
  vi.stubEnv('NEXTAUTH_URL', publicUrl)
  vi.stubEnv('WEBHOOK_SECRET_KEY', 'sec58-sign-in-across-session-ends-key')
  newsroom = await createTestTenant()
})
afterAll(() => vi.unstubAllEnvs())

const admin = () => newsroom.actor('admin') as Parameters<typeof resetSecondFactors>[1]
const liveSessions = async (userId: string) => (await db.portalSession.findMany({ where: { userId, endedAt: null }, select: { userAgent: true }, orderBy: { userAgent: 'asc' } })).map((s) => s.userAgent)

/**
 * A password sign-in whose password checks out, parked before its session starts (it reads the
 * newsroom's SSO settings in between, locked here) while `meanwhile` runs to its end; then let go.
 */
async function passwordSignInAcross(email: string, meanwhile: () => Promise<unknown>) {
  const parked = await holdLock('LOCK TABLE sso_connections IN ACCESS EXCLUSIVE MODE', [])
  const attacker = nextAuthBrowser({ userAgent: 'Attacker', address: '203.0.113.58' })
  const signIn = attacker.signIn(email, password)
  signIn.catch(() => undefined)
  await waitForLockWaiters(1)
  const change = meanwhile()
  change.catch(() => undefined)
  await Promise.allSettled([change])
  await parked.release()
  const [signedIn] = await Promise.allSettled([signIn])
  return { change, signedIn, attacker }
}

/**
 * A passkey sign-in whose assertion checks out, parked inside startPortalSession at the member's
 * factor lock (held here), then `meanwhile`: it waits for the same lock, or runs to its end if it
 * takes none; then the lock is let go.
 */
async function passkeySignInAtFactorLock(userId: string, key: SoftwarePasskey, meanwhile: () => Promise<unknown>) {
  const lock = await holdLock('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`second factors:${userId}`])
  const attacker = nextAuthBrowser({ userAgent: 'Attacker', address: '203.0.113.58' })
  const signIn = attacker.signInWithPasskey(key.assert(await passkeySignInOptions()))
  signIn.catch(() => undefined)
  await waitForLockWaiters(1)
  let changeDone = false
  const change = meanwhile().finally(() => (changeDone = true))
  change.catch(() => undefined)
  await waitForLockWaiters(2, () => changeDone)
  await lock.release()
  await Promise.allSettled([signIn, change])
  return { change, signIn }
}

async function withPasskey(tag: string) {
  const own = await memberOfTheirOwn(newsroom, tag, { sessions: { owner: 'Owner laptop' } })
  const sudo = { id: own.sessions.owner, reauthenticatedAt: new Date() }
  const key = new SoftwarePasskey({ origin: publicUrl, rpId: 'cms.newsroom.example' })
  await registerPasskey(own.member, sudo, { name: 'Synced key', response: key.register(await passkeyRegistrationOptions(own.member, sudo)) })
  return { ...own, key, sudo }
}

describe('a password change racing a sign-in with the old password', () => {
  it('checked before the change, its session due after: no session but the owner\'s', async () => {
    const { member, id, email, sessions } = await memberOfTheirOwn(newsroom, 's58p', { sessions: { owner: 'Owner laptop' } })
    const { change, signedIn } = await passwordSignInAcross(email, () => changeOwnPassword(member, { id: sessions.owner, reauthenticatedAt: new Date() }, { currentPassword: password, newPassword }, '198.51.100.10'))
    await expect(change).resolves.toMatchObject({ endedSessions: 0 })
    expect(await liveSessions(id)).toEqual(['Owner laptop'])
    expect(signedIn).toMatchObject({ status: 'fulfilled', value: false })
  }, 60_000)

  it('a sign-in inside its session\'s start when the change comes: the change ends that session too', async () => {
    const { member, id, sessions, key } = await withPasskey('s58q')
    const { change } = await passkeySignInAtFactorLock(id, key, () => changeOwnPassword(member, { id: sessions.owner, reauthenticatedAt: new Date() }, { currentPassword: password, newPassword }, '198.51.100.10'))
    await expect(change).resolves.toBeDefined()
    expect(await liveSessions(id)).toEqual(['Owner laptop'])
  }, 60_000)

  it('a two-step sign-in whose password step came before the change and its code after: no session', async () => {
    const { member, id, email, sessions } = await memberOfTheirOwn(newsroom, 's58t', { sessions: { owner: 'Owner laptop' }, app: 'confirmed' })
    const attacker = nextAuthBrowser({ userAgent: 'Attacker', address: '203.0.113.58' })
    const first = await attacker.step('credentials', { email, password })
    const pendingToken = /^SecondFactorRequired:([^:]+):/.exec(first.error ?? '')?.[1]
    expect(pendingToken).toBeTruthy()
    await changeOwnPassword(member, { id: sessions.owner, reauthenticatedAt: new Date() }, { currentPassword: password, newPassword }, '198.51.100.10')
    const second = await attacker.step('second-factor', { pendingToken: pendingToken!, code: totpCode(appSecret, totpStep()) })
    expect(second.signedIn).toBe(false)
    expect(await liveSessions(id)).toEqual(['Owner laptop'])
  }, 60_000)
})

describe('a deactivation racing a sign-in', () => {
  it('a password sign-in checked before the deactivation, its session due after: no live session', async () => {
    const { id, email } = await memberOfTheirOwn(newsroom, 's58d')
    const { change, signedIn } = await passwordSignInAcross(email, () => deactivateUser(admin(), { userId: id }))
    await expect(change).resolves.toMatchObject({ active: false })
    expect(await liveSessions(id)).toEqual([])
    expect(signedIn).toMatchObject({ status: 'fulfilled', value: false })
  }, 60_000)

  it('a passkey sign-in inside its session\'s start when the deactivation comes: no live session', async () => {
    const { id, key } = await withPasskey('s58e')
    const { change } = await passkeySignInAtFactorLock(id, key, () => deactivateUser(admin(), { userId: id }))
    await expect(change).resolves.toMatchObject({ active: false })
    expect(await liveSessions(id)).toEqual([])
  }, 60_000)
})

describe('a password-only sign-in', () => {
  it('racing "sign out everywhere else": no session but the one that asked', async () => {
    const { member, id, email, sessions } = await memberOfTheirOwn(newsroom, 's58o', { sessions: { owner: 'Owner laptop' } })
    const { change, signedIn } = await passwordSignInAcross(email, () => endOtherPortalSessions(member, sessions.owner))
    await expect(change).resolves.toBe(0)
    expect(await liveSessions(id)).toEqual(['Owner laptop'])
    expect(signedIn).toMatchObject({ status: 'fulfilled', value: false })
  }, 60_000)

  it('racing an admin\'s reset: no live session', async () => {
    const { id, email } = await memberOfTheirOwn(newsroom, 's58r', { sessions: { owner: 'Owner laptop' } })
    const { change, signedIn } = await passwordSignInAcross(email, () => tenantDb(newsroom.tenant.id).$transaction((tx) => resetSecondFactors(tx, admin(), id), { timeout: 20_000 }))
    await expect(change).resolves.toMatchObject({ endedSessions: 1 })
    expect(await liveSessions(id)).toEqual([])
    expect(signedIn).toMatchObject({ status: 'fulfilled', value: false })
  }, 60_000)

  it('with nothing racing it, signs in', async () => {
    const { id, email } = await memberOfTheirOwn(newsroom, 's58n')
    expect(await nextAuthBrowser({ userAgent: 'Member', address: '198.51.100.11' }).signIn(email, password)).toBe(true)
    expect(await liveSessions(id)).toEqual(['Member'])
  }, 60_000)
})
