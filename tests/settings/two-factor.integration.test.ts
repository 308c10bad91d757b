import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { resetRateLimitersForTests } from '../../lib/api/rate-limit.ts'
import { secondFactorsOf } from '../../lib/auth/second-factors.ts'
import { totpCode, totpStep } from '../../lib/auth/totp.ts'
import { db } from '../../lib/db/client.ts'
import type { Role } from '../../lib/db/generated/enums.ts'
import { createCallerFactory } from '../../lib/trpc/init.ts'
import { portalContextFromSession } from '../../lib/trpc/context.ts'
import { appRouter } from '../../lib/trpc/routers/app-router.ts'
import { nextAuthBrowser } from '../support/next-auth-browser.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// Two factors as a member meets them: enrolment in Settings → Security, the two-step sign-in
// through next-auth's own handler (the password alone gives no session), recovery codes, the
// newsroom's policy and its grace, an admin's reset, and sudo mode by code. Real PostgreSQL.

const createCaller = createCallerFactory(appRouter)
const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0'
const address = '198.51.100.40'
let newsroom: TestTenant

beforeAll(async () => {
  vi.stubEnv('WEBHOOK_SECRET_KEY', 'two-factor-test-key')
  newsroom = await createTestTenant()
})

afterAll(() => vi.unstubAllEnvs())

/** A browser that signed in with the password alone (the member has no factor yet). */
async function signedIn(role: Role) {
  const browser = nextAuthBrowser({ userAgent: firefox, address })
  expect(await browser.signIn(newsroom.users[role].email, 'test-password')).toBe(true)
  return { browser, portal: async () => createCaller(portalContextFromSession(await browser.session(), address)) }
}

/** Sets up an authenticator app for the member as the Security page does; the key and the recovery codes shown. */
async function enrol(role: Role) {
  const { browser, portal } = await signedIn(role)
  const { secret, qrCode } = await (await portal()).security.startTotp()
  expect(qrCode).toMatch(/^data:image\/svg\+xml;base64,/)
  const { recoveryCodes } = await (await portal()).security.confirmTotp({ code: totpCode(secret, totpStep()) })
  return { secret, recoveryCodes, browser, portal }
}

/** As if the member's last accepted code were a minute old, so the current step's code is new again. */
async function forgetLastCode(userId: string) {
  await db.totpFactor.update({ where: { userId }, data: { lastUsedStep: BigInt(totpStep() - 2) } })
}

async function passwordStep(role: Role) {
  const browser = nextAuthBrowser({ userAgent: firefox, address })
  const first = await browser.step('credentials', { email: newsroom.users[role].email, password: 'test-password' })
  expect(first.signedIn).toBe(false)
  expect(first.error).toMatch(/^SecondFactorRequired:/)
  return { browser, pendingToken: first.error!.slice('SecondFactorRequired:'.length).split(':')[0]! }
}

const auditRows = (action: string, targetId: string) => db.auditEntry.findMany({ where: { tenantId: newsroom.tenant.id, action, targetId }, orderBy: { createdAt: 'asc' } })

describe('enrolment', () => {
  it('keeps the key encrypted, confirms it with a code and shows ten recovery codes stored hashed', async () => {
    // Its own newsroom, so the sign-in tests below start from members without a factor.
    const fresh = await createTestTenant()
    const portal = await createCallerFor(fresh, 'writer')
    const { secret, uri } = await (await portal()).security.startTotp()
    expect(uri).toContain(`secret=${secret}`)
    const stored = await db.totpFactor.findUniqueOrThrow({ where: { userId: fresh.users.writer.id } })
    expect(stored.secretEncrypted).not.toContain(secret)
    expect(stored.confirmedAt).toBeNull()
    // Not a factor until confirmed: the password alone still signs in.
    expect(await nextAuthBrowser({ userAgent: firefox, address }).signIn(fresh.users.writer.email, 'test-password')).toBe(true)

    await expect((await portal()).security.confirmTotp({ code: totpCode(secret, totpStep() + 3) })).rejects.toMatchObject({ code: 'UNPROCESSABLE_CONTENT' })
    const { recoveryCodes } = await (await portal()).security.confirmTotp({ code: totpCode(secret, totpStep()) })
    expect(recoveryCodes).toHaveLength(10)
    expect(new Set(recoveryCodes).size).toBe(10)
    const hashes = await db.recoveryCode.findMany({ where: { userId: fresh.users.writer.id } })
    expect(hashes).toHaveLength(10)
    expect(hashes.map((row) => row.codeHash)).not.toContain(recoveryCodes[0])
    // A copy of the table does not give the codes away to a fast hash: each is salted with its
    // member and slow to compute (50 random bits tried at SHA-256 speed fall in days on one GPU).
    const fastHash = (code: string) => createHash('sha256').update(code.replace('-', '')).digest('hex')
    expect(hashes.map((row) => row.codeHash)).not.toContain(fastHash(recoveryCodes[0]!))
    expect(hashes.every((row) => row.codeHash.startsWith('scrypt$'))).toBe(true)
    expect(await (await portal()).security.twoFactor()).toMatchObject({ totp: true, recoveryCodesLeft: 10, dueBy: null })
    expect(await db.auditEntry.count({ where: { tenantId: fresh.tenant.id, action: 'two_factor.totp_enrolled', targetId: fresh.users.writer.id } })).toBe(1)
  })
})

describe('two-step sign-in', () => {
  it('gives no session for the password alone; the TOTP code finishes it, once', async () => {
    const { secret } = await enrol('editor')
    const sessionsBefore = await db.portalSession.count({ where: { userId: newsroom.users.editor.id } })
    const { browser, pendingToken } = await passwordStep('editor')
    expect(await browser.session()).toBeNull()
    expect(await db.portalSession.count({ where: { userId: newsroom.users.editor.id } })).toBe(sessionsBefore)

    await forgetLastCode(newsroom.users.editor.id)
    const code = totpCode(secret, totpStep())
    expect(await browser.step('second-factor', { pendingToken, code })).toEqual({ error: null, signedIn: true })
    expect((await browser.session())?.user.id).toBe(newsroom.users.editor.id)
    // The pending sign-in is used up.
    expect((await nextAuthBrowser({ userAgent: firefox, address }).step('second-factor', { pendingToken, code })).error).toBe('SecondFactorExpired')

    // The same code in the same window is refused on the next sign-in (replay), as "already used"
    // (the form says so), not as a wrong code; it still counts against the pending sign-in.
    const again = await passwordStep('editor')
    expect(await again.browser.step('second-factor', { pendingToken: again.pendingToken, code })).toEqual({ error: 'SecondFactorReused:4', signedIn: false })
  })

  it('accepts a code one step either side of now and refuses two steps off', async () => {
    const { secret } = await enrol('admin')
    const userId = newsroom.users.admin.id
    for (const [offset, accepted] of [[-2, false], [2, false], [-1, true], [1, true]] as const) {
      await forgetLastCode(userId)
      const { browser, pendingToken } = await passwordStep('admin')
      const answer = await browser.step('second-factor', { pendingToken, code: totpCode(secret, totpStep() + offset) })
      expect([offset, answer.signedIn]).toEqual([offset, accepted])
    }
  })

  it('takes a recovery code once, and audits its use', async () => {
    const { recoveryCodes } = await enrol('writer')
    const { browser, pendingToken } = await passwordStep('writer')
    // Typed as people do: upper case, no dash.
    expect(await browser.step('second-factor', { pendingToken, code: recoveryCodes[0]!.replace('-', '').toUpperCase() })).toEqual({ error: null, signedIn: true })
    expect(await secondFactorsOf(newsroom.users.writer.id)).toEqual({ totp: true, passkeys: 0, recoveryCodesLeft: 9 })
    const [used] = await auditRows('two_factor.recovery_code_used', newsroom.users.writer.id)
    expect(used?.metadata).toMatchObject({ left: 9 })

    const again = await passwordStep('writer')
    expect((await again.browser.step('second-factor', { pendingToken: again.pendingToken, code: recoveryCodes[0]! })).signedIn).toBe(false)
  })

  it('still takes a code issued before codes were salted (stored as its plain SHA-256), once', async () => {
    const fresh = await createTestTenant()
    const portal = await createCallerFor(fresh, 'writer')
    const { secret } = await (await portal()).security.startTotp()
    await (await portal()).security.confirmTotp({ code: totpCode(secret, totpStep()) })
    const legacy = 'k3m9x7qp2d'
    await db.recoveryCode.create({ data: { id: `rcv_legacy${Date.now()}`, tenantId: fresh.tenant.id, userId: fresh.users.writer.id, codeHash: createHash('sha256').update(legacy).digest('hex') } })
    const secondStep = async (code: string) => {
      const browser = nextAuthBrowser({ userAgent: firefox, address })
      const first = await browser.step('credentials', { email: fresh.users.writer.email, password: 'test-password' })
      expect(first.error).toMatch(/^SecondFactorRequired:/)
      return browser.step('second-factor', { pendingToken: first.error!.slice('SecondFactorRequired:'.length).split(':')[0]!, code })
    }
    expect(await secondStep('K3M9X-7QP2D')).toEqual({ error: null, signedIn: true })
    expect((await secondStep(legacy)).signedIn).toBe(false)
  })

  it('kills the pending sign-in after five wrong codes, audited, so even the right code is then refused', async () => {
    // The writer enrolled in the test before.
    const secret = await secretOf(newsroom.users.writer.id)
    const { browser, pendingToken } = await passwordStep('writer')
    const answers = []
    for (let i = 0; i < 5; i++) answers.push((await browser.step('second-factor', { pendingToken, code: totpCode(secret, totpStep() + 5) })).error)
    expect(answers).toEqual(['SecondFactorWrong:4', 'SecondFactorWrong:3', 'SecondFactorWrong:2', 'SecondFactorWrong:1', 'SecondFactorExpired'])
    await forgetLastCode(newsroom.users.writer.id)
    expect(await browser.step('second-factor', { pendingToken, code: totpCode(secret, totpStep()) })).toEqual({ error: 'SecondFactorExpired', signedIn: false })
    const locked = await auditRows('two_factor.sign_in_locked', newsroom.users.writer.id)
    expect(locked).toHaveLength(1)
    expect(locked[0]!.metadata).toMatchObject({ attempts: 5, address })
  })
})

describe('guessing limits', () => {
  it('counts wrong codes against the account’s sign-in limit, so a known password cannot buy endless guesses', async () => {
    const fresh = await createTestTenant()
    const member = await createCallerFor(fresh, 'editor')
    const { secret } = await (await member()).security.startTotp()
    await (await member()).security.confirmTotp({ code: totpCode(secret, totpStep()) })
    vi.stubEnv('RATE_LIMIT_SIGN_IN_PER_ACCOUNT', '4')
    resetRateLimitersForTests()
    try {
      const wrong = totpCode(secret, totpStep() + 5)
      const errors: (string | null)[] = []
      for (let i = 0; i < 2; i++) {
        const browser = nextAuthBrowser({ userAgent: firefox, address: `198.51.100.${60 + i}` })
        const first = await browser.step('credentials', { email: fresh.users.editor.email, password: 'test-password' })
        const pendingToken = first.error!.slice('SecondFactorRequired:'.length).split(':')[0]!
        for (let j = 0; j < 3; j++) errors.push((await browser.step('second-factor', { pendingToken, code: wrong })).error)
      }
      const refused = expect.stringMatching(/^TooManySignInAttempts:\d+$/)
      expect(errors).toEqual(['SecondFactorWrong:4', 'SecondFactorWrong:3', 'SecondFactorWrong:2', 'SecondFactorWrong:4', refused, refused])
      // Codes are refused for a while from any address (whoever guesses them has the password);
      // the password step itself still answers, and its code step waits.
      const elsewhere = nextAuthBrowser({ userAgent: firefox, address: '198.51.100.70' })
      const first = await elsewhere.step('credentials', { email: fresh.users.editor.email, password: 'test-password' })
      expect(first.error).toMatch(/^SecondFactorRequired:/)
      const pendingToken = first.error!.slice('SecondFactorRequired:'.length).split(':')[0]!
      expect((await elsewhere.step('second-factor', { pendingToken, code: totpCode(secret, totpStep()) })).error).toEqual(refused)
    } finally {
      vi.stubEnv('RATE_LIMIT_SIGN_IN_PER_ACCOUNT', '10')
      resetRateLimitersForTests()
    }
  })
})

async function secretOf(userId: string): Promise<string> {
  const { decryptSecret } = await import('../../lib/security/secret-box.ts')
  return decryptSecret((await db.totpFactor.findUniqueOrThrow({ where: { userId } })).secretEncrypted)
}

/** As if the session's last sign-in or confirmation were this many minutes ago. */
async function age(browser: ReturnType<typeof nextAuthBrowser>, minutes: number) {
  const sessionId = (await browser.session())!.sessionId
  await db.portalSession.update({ where: { id: sessionId }, data: { reauthenticatedAt: new Date(Date.now() - minutes * 60_000) } })
}

describe('sudo mode and managing the factor', () => {
  it('accepts a TOTP code instead of the password, then removes the factor and regenerates codes only in sudo mode', async () => {
    const fresh = await createTestTenant()
    const userId = fresh.users.editor.id
    const browser = nextAuthBrowser({ userAgent: firefox, address })
    expect(await browser.signIn(fresh.users.editor.email, 'test-password')).toBe(true)
    const portal = async () => createCaller(portalContextFromSession(await browser.session(), address))
    const { secret } = await (await portal()).security.startTotp()
    const confirmedStep = totpStep()
    await (await portal()).security.confirmTotp({ code: totpCode(secret, confirmedStep) })

    await age(browser, 11)
    await expect((await portal()).security.regenerateRecoveryCodes()).rejects.toMatchObject({ cause: expect.objectContaining({ code: 'reauthentication_required' }) })
    await expect((await portal()).security.removeTotp()).rejects.toMatchObject({ cause: expect.objectContaining({ code: 'reauthentication_required' }) })
    // The code just used to confirm the app is spent; a wrong one is refused. The confirmed
    // step's own code, not the current step's: on a busy machine a new 30-s step began between
    // the two, and its fresh code was rightly accepted (CI-like run, 2026-12-02).
    await expect((await portal()).security.reauthenticate({ code: totpCode(secret, confirmedStep) })).rejects.toMatchObject({ code: 'UNPROCESSABLE_CONTENT' })
    await db.totpFactor.update({ where: { userId }, data: { lastUsedStep: BigInt(totpStep() - 2) } })
    await (await portal()).security.reauthenticate({ code: totpCode(secret, totpStep()) })

    const { recoveryCodes } = await (await portal()).security.regenerateRecoveryCodes()
    expect(recoveryCodes).toHaveLength(10)
    await (await portal()).security.removeTotp()
    expect(await secondFactorsOf(userId)).toEqual({ totp: false, passkeys: 0, recoveryCodesLeft: 0 })
    const actions = (await db.auditEntry.findMany({ where: { tenantId: fresh.tenant.id, targetId: userId }, orderBy: { createdAt: 'asc' } })).map((row) => row.action)
    // The spent code typed into the sudo dialog is a failed proof, audited as every sign-in failure is (sign-in-throttle.ts).
    expect(actions).toEqual(['two_factor.totp_enrolled', 'user.sign_in_failed', 'two_factor.recovery_codes_regenerated', 'two_factor.totp_removed'])
    // Without a factor the password alone signs in again.
    expect(await nextAuthBrowser({ userAgent: firefox, address }).signIn(fresh.users.editor.email, 'test-password')).toBe(true)
  })
})

describe('admin reset', () => {
  it('removes the member’s factors and ends all their sessions on the next request, in sudo mode, audited', async () => {
    const fresh = await createTestTenant()
    const member = nextAuthBrowser({ userAgent: firefox, address })
    expect(await member.signIn(fresh.users.writer.email, 'test-password')).toBe(true)
    const memberPortal = async () => createCaller(portalContextFromSession(await member.session(), address))
    const { secret } = await (await memberPortal()).security.startTotp()
    await (await memberPortal()).security.confirmTotp({ code: totpCode(secret, totpStep()) })

    const admin = nextAuthBrowser({ userAgent: firefox, address })
    expect(await admin.signIn(fresh.users.admin.email, 'test-password')).toBe(true)
    const adminPortal = async () => createCaller(portalContextFromSession(await admin.session(), address))
    expect((await (await adminPortal()).users.list()).find((user) => user.id === fresh.users.writer.id)?.hasSecondFactor).toBe(true)
    await expect((await memberPortal()).users.resetSecondFactors({ userId: fresh.users.admin.id })).rejects.toMatchObject({ code: 'FORBIDDEN' })
    await age(admin, 11)
    await expect((await adminPortal()).users.resetSecondFactors({ userId: fresh.users.writer.id })).rejects.toMatchObject({ cause: expect.objectContaining({ code: 'reauthentication_required' }) })
    expect(await member.session()).not.toBeNull()

    await age(admin, 0)
    expect(await (await adminPortal()).users.resetSecondFactors({ userId: fresh.users.writer.id })).toEqual({ endedSessions: 1, removed: ['totp'] })
    expect(await member.session()).toBeNull()
    expect(await secondFactorsOf(fresh.users.writer.id)).toEqual({ totp: false, passkeys: 0, recoveryCodesLeft: 0 })
    const [entry] = await db.auditEntry.findMany({ where: { tenantId: fresh.tenant.id, action: 'user.factors_reset' } })
    expect(entry).toMatchObject({ actorId: fresh.users.admin.id, targetId: fresh.users.writer.id, metadata: { removed: ['totp'], ended_sessions: 1 } })
    // The member signs in with the password alone and sets a factor up again.
    expect(await nextAuthBrowser({ userAgent: firefox, address }).signIn(fresh.users.writer.email, 'test-password')).toBe(true)
  })
})

describe('newsroom policy', () => {
  it('lets a covered member without a factor in during the grace, then allows only enrolment until they set one up', async () => {
    const fresh = await createTestTenant()
    const admin = nextAuthBrowser({ userAgent: firefox, address })
    expect(await admin.signIn(fresh.users.admin.email, 'test-password')).toBe(true)
    const adminPortal = async () => createCaller(portalContextFromSession(await admin.session(), address))
    await expect((await (await createCallerFor(fresh, 'editor'))()).twoFactorPolicy.save({ policy: 'all', graceDays: 7 })).rejects.toMatchObject({ code: 'FORBIDDEN' })
    await age(admin, 11)
    await expect((await adminPortal()).twoFactorPolicy.save({ policy: 'all', graceDays: 7 })).rejects.toMatchObject({ cause: expect.objectContaining({ code: 'reauthentication_required' }) })
    await age(admin, 0)
    expect(await (await adminPortal()).twoFactorPolicy.save({ policy: 'admins', graceDays: 7 })).toMatchObject({ policy: 'admins', graceDays: 7 })
    const [changed] = await db.auditEntry.findMany({ where: { tenantId: fresh.tenant.id, action: 'two_factor.policy_changed' } })
    expect(changed?.metadata).toMatchObject({ from: { policy: 'optional', graceDays: 14 }, to: { policy: 'admins', graceDays: 7 } })

    // Admins only: the writer is not covered, the admin is, with a week to go.
    const writer = await createCallerFor(fresh, 'writer')
    expect(await (await writer()).security.twoFactor()).toMatchObject({ totp: false, dueBy: null })
    const dueBy = new Date((await admin.session())!.secondFactorDueBy!)
    expect(Math.round((dueBy.getTime() - Date.now()) / 86_400_000)).toBe(7)
    await (await adminPortal()).users.list()

    // The grace has passed: only Security answers, and the password alone still signs in to reach it.
    await db.tenant.update({ where: { id: fresh.tenant.id }, data: { twoFactorPolicyChangedAt: new Date(Date.now() - 8 * 86_400_000) } })
    await db.user.update({ where: { id: fresh.users.admin.id }, data: { createdAt: new Date(Date.now() - 30 * 86_400_000) } })
    const late = nextAuthBrowser({ userAgent: firefox, address })
    expect(await late.signIn(fresh.users.admin.email, 'test-password')).toBe(true)
    const latePortal = async () => createCaller(portalContextFromSession(await late.session(), address))
    await expect((await latePortal()).users.list()).rejects.toMatchObject({ code: 'FORBIDDEN', cause: expect.objectContaining({ code: 'second_factor_setup_required' }) })
    await expect((await latePortal()).me()).rejects.toMatchObject({ cause: expect.objectContaining({ code: 'second_factor_setup_required' }) })
    const { secret } = await (await latePortal()).security.startTotp()
    await (await latePortal()).security.confirmTotp({ code: totpCode(secret, totpStep()) })
    expect((await late.session())!.secondFactorDueBy).toBeNull()
    await (await latePortal()).users.list()
  })
})

async function createCallerFor(tenant: TestTenant, role: Role) {
  const browser = nextAuthBrowser({ userAgent: firefox, address })
  expect(await browser.signIn(tenant.users[role].email, 'test-password')).toBe(true)
  return async () => createCaller(portalContextFromSession(await browser.session(), address))
}
