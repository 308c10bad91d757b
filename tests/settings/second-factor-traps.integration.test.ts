import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { getRevision, listRevisions } from '../../lib/articles/article-revisions.ts'
import { createArticle } from '../../lib/articles/create-article.ts'
import { passkeyAvailability } from '../../lib/auth/passkeys.ts'
import { totpCode, totpStep } from '../../lib/auth/totp.ts'
import { db } from '../../lib/db/client.ts'
import type { Role } from '../../lib/db/generated/enums.ts'
import { portalContextFromSession } from '../../lib/trpc/context.ts'
import { createCallerFactory } from '../../lib/trpc/init.ts'
import { appRouter } from '../../lib/trpc/routers/app-router.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { nextAuthBrowser } from '../support/next-auth-browser.ts'
import { SoftwarePasskey } from '../support/software-authenticator.ts'

// Issue 46, points 5-7, as a member and an admin meet them through next-auth's own handler and
// the portal's procedures: passkeys that explain themselves and leave a way back (recovery
// codes), a reused code told apart, a policy that cannot lock out the admin saving it, and
// revisions stored before sanitising served sanitised. Real PostgreSQL.

const createCaller = createCallerFactory(appRouter)
const publicUrl = 'https://cms.newsroom.example'
const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0'
let newsroom: TestTenant
let passwordHash: string

beforeAll(async () => {
  vi.stubEnv('NEXTAUTH_URL', publicUrl)
  vi.stubEnv('WEBHOOK_SECRET_KEY', 'second-factor-traps-key')
  newsroom = await createTestTenant()
  passwordHash = (await db.user.findUniqueOrThrow({ where: { id: newsroom.users.writer.id } })).passwordHash
})

afterAll(() => vi.unstubAllEnvs())

let sequence = 0
/** A member of their own (the fixtures' password), so one test's factors touch no other's. */
async function newMember(role: Role = 'writer', of: TestTenant = newsroom) {
  sequence += 1
  const id = `usr_trap${Date.now()}${sequence}`
  return db.user.create({ data: { id, tenantId: of.tenant.id, email: `trap-${id}@example.test`, name: `Trap ${sequence}`, role, passwordHash } })
}

async function signedIn(user: { email: string }, address = '198.51.100.80') {
  const browser = nextAuthBrowser({ userAgent: firefox, address })
  expect(await browser.signIn(user.email, 'test-password')).toBe(true)
  return { browser, portal: async () => createCaller(portalContextFromSession(await browser.session(), address)) }
}

describe('passkeys without traps', () => {
  it('says why passkeys are unavailable when NEXTAUTH_URL is an IP address, and refuses to start one with that reason', async () => {
    expect(passkeyAvailability()).toEqual({ available: true })
    const member = await signedIn(await newMember())
    vi.stubEnv('NEXTAUTH_URL', 'http://192.0.2.10:3000')
    try {
      const availability = passkeyAvailability()
      expect(availability).toMatchObject({ available: false, reason: expect.stringMatching(/NEXTAUTH_URL.*is an IP address.*host name/) })
      await expect((await member.portal()).security.passkeyRegistrationOptions()).rejects.toMatchObject({ message: expect.stringMatching(/IP address.*host name/) })
      vi.stubEnv('NEXTAUTH_URL', 'http://[2001:db8::1]:3000')
      expect(passkeyAvailability()).toMatchObject({ available: false, reason: expect.stringMatching(/IP address/) })
      vi.stubEnv('NEXTAUTH_URL', 'http://cms.newsroom.example')
      expect(passkeyAvailability()).toMatchObject({ available: false, reason: expect.stringMatching(/only on https/) })
      vi.stubEnv('NEXTAUTH_URL', 'http://localhost:3000')
      expect(passkeyAvailability()).toEqual({ available: true })
    } finally {
      vi.stubEnv('NEXTAUTH_URL', publicUrl)
    }
  })

  it('issues recovery codes with the first passkey, offers them at password sign-in, and one finishes the sign-in when the device is lost', async () => {
    const user = await newMember()
    const member = await signedIn(user)
    const device = new SoftwarePasskey({ origin: publicUrl, rpId: 'cms.newsroom.example' })
    const first = await (await member.portal()).security.registerPasskey({ name: 'Phone', response: device.register(await (await member.portal()).security.passkeyRegistrationOptions()) })
    expect(first.recoveryCodes).toHaveLength(10)
    expect(await db.recoveryCode.count({ where: { userId: user.id, usedAt: null } })).toBe(10)
    expect(await db.auditEntry.findFirst({ where: { action: 'passkey.added', targetId: first.id } })).toMatchObject({ metadata: expect.objectContaining({ recovery_codes: 10 }) })
    // A second passkey leaves the codes the member saved alone.
    const laptop = new SoftwarePasskey({ origin: publicUrl, rpId: 'cms.newsroom.example' })
    const second = await (await member.portal()).security.registerPasskey({ name: 'Laptop', response: laptop.register(await (await member.portal()).security.passkeyRegistrationOptions()) })
    expect(second.recoveryCodes).toBeNull()
    expect(await (await member.portal()).security.twoFactor()).toMatchObject({ totp: false, passkeys: 2, recoveryCodesLeft: 10 })

    // Another address, no passkey at hand: the password step offers the recovery codes too.
    const browser = nextAuthBrowser({ userAgent: firefox, address: '203.0.113.81' })
    const step = await browser.step('credentials', { email: user.email, password: 'test-password' })
    const [kind, token, offered] = step.error!.split(':')
    expect([kind, offered]).toEqual(['SecondFactorRequired', 'passkey,recovery_code'])
    expect(await browser.step('second-factor', { pendingToken: token!, code: first.recoveryCodes![0]!.toUpperCase() })).toEqual({ error: null, signedIn: true })
    expect((await browser.session())?.user.id).toBe(user.id)
    expect(await db.recoveryCode.count({ where: { userId: user.id, usedAt: null } })).toBe(9)

    // New codes for a passkey-only member (sudo mode, the session is fresh).
    expect((await (await member.portal()).security.regenerateRecoveryCodes()).recoveryCodes).toHaveLength(10)
  })

  it('keeps the recovery codes while any factor remains, and drops them with the last one', async () => {
    const user = await newMember()
    const member = await signedIn(user)
    const portal = member.portal
    const device = new SoftwarePasskey({ origin: publicUrl, rpId: 'cms.newsroom.example' })
    const passkey = await (await portal()).security.registerPasskey({ name: 'Phone', response: device.register(await (await portal()).security.passkeyRegistrationOptions()) })
    // An authenticator app next to it: its confirmation shows fresh codes, as it always has.
    const { secret } = await (await portal()).security.startTotp()
    expect((await (await portal()).security.confirmTotp({ code: totpCode(secret, totpStep()) })).recoveryCodes).toHaveLength(10)
    await (await portal()).security.removeTotp()
    expect(await db.recoveryCode.count({ where: { userId: user.id, usedAt: null } })).toBe(10)
    await (await portal()).security.removePasskey({ passkeyId: passkey.id })
    expect(await db.recoveryCode.count({ where: { userId: user.id } })).toBe(0)
  })
})

describe('a reused TOTP code', () => {
  it('is reported as already used, at sign-in and in the sudo dialog, not as a wrong code', async () => {
    const user = await newMember()
    const member = await signedIn(user)
    const { secret } = await (await member.portal()).security.startTotp()
    const enrolledWith = totpCode(secret, totpStep())
    await (await member.portal()).security.confirmTotp({ code: enrolledWith })
    // The code that confirmed the app is used: the sudo dialog says so.
    await expect((await member.portal()).security.reauthenticate({ code: enrolledWith })).rejects.toMatchObject({ message: expect.stringMatching(/already used/) })
    await expect((await member.portal()).security.reauthenticate({ code: totpCode(secret, totpStep() + 9) })).rejects.toMatchObject({ message: expect.stringMatching(/not right/) })

    const browser = nextAuthBrowser({ userAgent: firefox, address: '198.51.100.82' })
    const token = (await browser.step('credentials', { email: user.email, password: 'test-password' })).error!.split(':')[1]!
    expect((await browser.step('second-factor', { pendingToken: token, code: enrolledWith })).error).toBe('SecondFactorReused:4')
    expect((await browser.step('second-factor', { pendingToken: token, code: totpCode(secret, totpStep() + 9) })).error).toBe('SecondFactorWrong:3')
  })
})

describe('no self-lockout', () => {
  it('refuses, with the reason, a policy that requires a factor at once of the admin saving it who has none; saves it with a grace or a factor', async () => {
    const fresh = await createTestTenant()
    const admin = await signedIn(fresh.users.admin, '198.51.100.83')
    for (const input of [
      { policy: 'all' as const, graceDays: 0 },
      { policy: 'admins' as const, graceDays: 0 },
      { policy: 'optional' as const, graceDays: 0, adminsNeedPortalFactor: true },
    ]) {
      await expect((await admin.portal()).twoFactorPolicy.save(input)).rejects.toMatchObject({
        code: 'UNPROCESSABLE_CONTENT',
        message: expect.stringMatching(/would lock you out.*Set up an authenticator app or a passkey in Security first, or give a grace period/),
      })
    }
    expect(await (await admin.portal()).twoFactorPolicy.get()).toMatchObject({ policy: 'optional', adminsNeedPortalFactor: false })
    // A grace: saved, and the admin's own session still reads the policy ("saved", not "could not be loaded").
    expect(await (await admin.portal()).twoFactorPolicy.save({ policy: 'all', graceDays: 1 })).toMatchObject({ policy: 'all', graceDays: 1 })
    expect(await (await admin.portal()).twoFactorPolicy.get()).toMatchObject({ policy: 'all', graceDays: 1 })
    // Shortening the grace of a policy in force to 0 would lock them out just the same.
    await expect((await admin.portal()).twoFactorPolicy.save({ policy: 'all', graceDays: 0 })).rejects.toMatchObject({ message: expect.stringMatching(/would lock you out/) })

    // With a factor of their own, the admin may require it of everyone at once.
    const { secret } = await (await admin.portal()).security.startTotp()
    await (await admin.portal()).security.confirmTotp({ code: totpCode(secret, totpStep()) })
    expect(await (await admin.portal()).twoFactorPolicy.save({ policy: 'all', graceDays: 0, ssoSecondFactor: 'portal_factor', adminsNeedPortalFactor: true })).toMatchObject({
      policy: 'all', graceDays: 0, ssoSecondFactor: 'portal_factor', adminsNeedPortalFactor: true,
    })
    expect(await db.auditEntry.findFirst({ where: { tenantId: fresh.tenant.id, action: 'two_factor.policy_changed' }, orderBy: { createdAt: 'desc' } })).toMatchObject({
      metadata: { to: { policy: 'all', graceDays: 0, ssoSecondFactor: 'portal_factor', adminsNeedPortalFactor: true } },
    })
  })

  it('never names a past deadline: Security reports an overdue one as overdue', async () => {
    const fresh = await createTestTenant()
    await db.tenant.update({ where: { id: fresh.tenant.id }, data: { twoFactorPolicy: 'all', twoFactorGraceDays: 0, twoFactorPolicyChangedAt: new Date(Date.now() - 60_000) } })
    const writer = await signedIn(fresh.users.writer, '198.51.100.84')
    expect(await (await writer.portal()).security.twoFactor()).toMatchObject({ dueBy: expect.any(String), overdue: true })
    await db.tenant.update({ where: { id: fresh.tenant.id }, data: { twoFactorGraceDays: 3 } })
    const later = await signedIn(fresh.users.editor, '198.51.100.85')
    expect(await (await later.portal()).security.twoFactor()).toMatchObject({ dueBy: expect.any(String), overdue: false })
  })
})

describe('revisions stored before bodies were sanitised', () => {
  it('are served sanitised', async () => {
    const actor = newsroom.actor('editor')
    const article = await createArticle(actor, { headline: 'Old revision', body: '<p>Safe</p>' })
    const [revision] = await db.articleRevision.findMany({ where: { articleId: article.id } })
    // As a revision written before sanitise-on-write holds it.
    await db.articleRevision.update({ where: { id: revision!.id }, data: { body: '<p onclick="steal()">Safe</p><script>steal()</script><img src=x onerror="steal()">' } })
    const served = await getRevision(actor, article.id, revision!.id)
    expect(served.body).not.toMatch(/script|onclick|onerror/)
    expect(served.body).toContain('<p>Safe</p>')
    const listed = await listRevisions(actor, article.id, { limit: 10, offset: 0 })
    expect(listed.items.find((item) => item.revision_id === revision!.id)!.body).not.toMatch(/script|onclick|onerror/)
  })
})

