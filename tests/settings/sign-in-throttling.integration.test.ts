import { randomUUID } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { resetRateLimitersForTests } from '../../lib/api/rate-limit.ts'
import { knownBrowserAccountSelect, knownBrowserCookie, rememberedBrowser } from '../../lib/auth/known-browser.ts'
import { generateTotpSecret, totpCode, totpStep } from '../../lib/auth/totp.ts'
import { db } from '../../lib/db/client.ts'
import { logger } from '../../lib/ops/logger.ts'
import { encryptSecret } from '../../lib/security/secret-box.ts'
import { nextAuthBrowser } from '../support/next-auth-browser.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// Sign-in throttling that cannot be turned against a member (issue 46, point 3), through
// next-auth's own handler with the app's options, a real SMTP server on 127.0.0.1 for the
// member's e-mail, and the budgets of lib/api/rate-limit.ts (Redis when the suite has it).

const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0'
const attacker = '203.0.113.66'
const membersDesk = '198.51.100.77'
const inbox: { to: string[]; raw: string }[] = []
let smtp: SMTPServer

const browserAt = (address: string) => nextAuthBrowser({ userAgent: firefox, address })
const guess = (email: string, from = attacker) => browserAt(from).step('credentials', { email, password: 'not-the-password' })
const audit = (newsroom: TestTenant, action: string, targetId: string) =>
  db.auditEntry.findMany({ where: { tenantId: newsroom.tenant.id, action, targetId }, orderBy: { createdAt: 'asc' } })

/** The known-browser note a browser got when it signed in to the account (with its password as it is now). */
const noteFor = async (userId: string) => rememberedBrowser(undefined, await db.user.findUniqueOrThrow({ where: { id: userId }, select: knownBrowserAccountSelect })).value

beforeAll(async () => {
  smtp = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        // Quoted-printable undone (soft line breaks, =XX), so the text reads as written.
        const raw = Buffer.concat(chunks).toString('utf8').replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
        inbox.push({ to: session.envelope.rcptTo.map((rcpt) => rcpt.address), raw })
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve))
  vi.stubEnv('SMTP_URL', `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`)
  vi.stubEnv('WEBHOOK_SECRET_KEY', 'sign-in-throttling-test-key')
  vi.stubEnv('RATE_LIMIT_SIGN_IN_PER_ACCOUNT', '4')
  vi.stubEnv('RATE_LIMIT_SIGN_IN_WHILE_LOCKED', '2')
  // This file's own budgets, whatever other files running beside it spend from the same addresses.
  vi.stubEnv('RATE_LIMIT_KEY_PREFIX', `throttling-test:${randomUUID()}`)
})

beforeEach(() => resetRateLimitersForTests())

afterAll(async () => {
  vi.unstubAllEnvs()
  resetRateLimitersForTests()
  await new Promise<void>((resolve) => smtp.close(() => resolve()))
})

describe('an account someone is guessing', () => {
  it('is locked against the guessing address only: the member signs in from theirs with the right password', async () => {
    const newsroom = await createTestTenant()
    const admin = newsroom.users.admin
    for (let i = 0; i < 4; i++) expect((await guess(admin.email)).error).toBe('CredentialsSignin')
    // The guesser is refused now, the real wait in the message (the window is 15 minutes).
    const refused = await guess(admin.email)
    expect(refused.error).toMatch(/^TooManySignInAttempts:\d+$/)
    const seconds = Number(refused.error!.split(':')[1])
    expect(seconds).toBeGreaterThan(14 * 60)
    expect(seconds).toBeLessThanOrEqual(15 * 60)
    // Even the right password from the guessing address waits.
    expect((await browserAt(attacker).step('credentials', { email: admin.email, password: 'test-password' })).error).toMatch(/^TooManySignInAttempts:/)
    // The admin at their desk is not locked out.
    const desk = await browserAt(membersDesk).step('credentials', { email: admin.email, password: 'test-password' })
    expect(desk).toEqual({ error: null, signedIn: true })
  })

  it('a member with a second factor signs in from an address that did not fail, password then code, however many addresses guessed', async () => {
    const newsroom = await createTestTenant()
    const editor = newsroom.users.editor
    const secret = generateTotpSecret()
    await db.totpFactor.create({ data: { userId: editor.id, tenantId: newsroom.tenant.id, secretEncrypted: encryptSecret(secret), confirmedAt: new Date() } })
    for (let i = 0; i < 12; i++) await guess(editor.email, `203.0.113.${100 + i}`)
    const desk = browserAt(membersDesk)
    const first = await desk.step('credentials', { email: editor.email, password: 'test-password' })
    expect(first.error).toMatch(/^SecondFactorRequired:/)
    const pendingToken = first.error!.slice('SecondFactorRequired:'.length).split(':')[0]!
    expect(await desk.step('second-factor', { pendingToken, code: totpCode(secret, totpStep()) })).toEqual({ error: null, signedIn: true })
  })

  it('a member without a second factor gets a few tries from fresh addresses while locked, taken before the password is checked, then the real wait', async () => {
    const newsroom = await createTestTenant()
    const writer = newsroom.users.writer
    for (let i = 0; i < 4; i++) await guess(writer.email, `203.0.113.${150 + i}`)
    // RATE_LIMIT_SIGN_IN_WHILE_LOCKED=2: two fresh addresses may try, the third is refused, right password or not.
    expect((await guess(writer.email, '203.0.113.160')).error).toBe('CredentialsSignin')
    expect((await guess(writer.email, '203.0.113.161')).error).toBe('CredentialsSignin')
    const refused = await browserAt(membersDesk).step('credentials', { email: writer.email, password: 'test-password' })
    expect(refused.error).toMatch(/^TooManySignInAttempts:\d+:locked$/)
    expect(Number(refused.error!.split(':')[1])).toBeGreaterThan(60)
  })

  it('a member without a second factor still signs in from a browser that signed in to the account before, once strangers have used up the lock\'s tries', async () => {
    const newsroom = await createTestTenant()
    const writer = newsroom.users.writer
    for (let i = 0; i < 4; i++) await guess(writer.email, `203.0.113.${170 + i}`)
    // Strangers at fresh addresses use up the few tries the lock leaves (RATE_LIMIT_SIGN_IN_WHILE_LOCKED=2).
    await guess(writer.email, '203.0.113.180')
    await guess(writer.email, '203.0.113.181')
    expect((await guess(writer.email, '203.0.113.182')).error).toMatch(/^TooManySignInAttempts:\d+:locked$/)
    // The writer's own laptop signed in to this account last week; a forged or another account's note does not count.
    const ownLaptop = nextAuthBrowser({ userAgent: firefox, address: membersDesk, cookies: { [knownBrowserCookie]: (await noteFor(writer.id)) } })
    const forged = nextAuthBrowser({ userAgent: firefox, address: '198.51.100.78', cookies: { [knownBrowserCookie]: `${writer.id}.9999999999.${'A'.repeat(43)}` } })
    const someoneElses = nextAuthBrowser({ userAgent: firefox, address: '198.51.100.79', cookies: { [knownBrowserCookie]: (await noteFor(newsroom.users.editor.id)) } })
    expect((await forged.step('credentials', { email: writer.email, password: 'test-password' })).error).toMatch(/^TooManySignInAttempts:\d+:locked$/)
    expect((await someoneElses.step('credentials', { email: writer.email, password: 'test-password' })).error).toMatch(/^TooManySignInAttempts:\d+:locked$/)
    expect(await ownLaptop.step('credentials', { email: writer.email, password: 'test-password' })).toEqual({ error: null, signedIn: true })
    // The note lets the password be checked; it is no way around it.
    const wrong = nextAuthBrowser({ userAgent: firefox, address: '198.51.100.80', cookies: { [knownBrowserCookie]: (await noteFor(writer.id)) } })
    expect((await wrong.step('credentials', { email: writer.email, password: 'not-the-password' })).error).toBe('CredentialsSignin')
  })

  it('every failure and the lock are in the audit log and the server log, and the member is e-mailed once', async () => {
    const newsroom = await createTestTenant()
    const editor = newsroom.users.editor
    const warnings = vi.spyOn(logger, 'warn')
    for (let i = 0; i < 4; i++) await guess(editor.email)
    await guess(editor.email) // refused: a log line, not an audit entry
    const failed = await audit(newsroom, 'user.sign_in_failed', editor.id)
    expect(failed).toHaveLength(4)
    expect(failed[0]).toMatchObject({ actorId: null, targetType: 'user', metadata: { step: 'password', reason: 'wrong_password', address: attacker, accountLocked: false } })
    const locked = await audit(newsroom, 'user.sign_in_locked', editor.id)
    expect(locked).toHaveLength(1)
    expect(locked[0]!.metadata).toMatchObject({ address: attacker, failures: 4, of: 'passwords' })
    expect((await db.user.findUniqueOrThrow({ where: { id: editor.id } })).signInLockedUntil).not.toBeNull()

    const events = warnings.mock.calls.map(([fields]) => fields as { security_event?: string; user_id?: string; address?: string })
    expect(events.filter((event) => event.security_event === 'sign_in.failed' && event.user_id === editor.id)).toHaveLength(4)
    expect(events.filter((event) => event.security_event === 'sign_in.locked' && event.user_id === editor.id)).toHaveLength(1)
    expect(events.filter((event) => event.security_event === 'sign_in.refused' && event.user_id === editor.id && event.address === attacker)).toHaveLength(1)
    warnings.mockRestore()

    const mails = inbox.filter((mail) => mail.to.includes(editor.email))
    expect(mails).toHaveLength(1)
    expect(mails[0]!.raw).toContain('Subject: Someone is trying to sign in to your newsroom account')
    expect(mails[0]!.raw).toContain(attacker)
    expect(mails[0]!.raw).toContain('You can still sign in from your usual place')
  })

  it('the lock ending is audited by the first attempt that finds it over', async () => {
    vi.stubEnv('RATE_LIMIT_SIGN_IN_WINDOW_SECONDS', '2')
    resetRateLimitersForTests()
    try {
      const newsroom = await createTestTenant()
      const writer = newsroom.users.writer
      for (let i = 0; i < 4; i++) await guess(writer.email)
      expect(await audit(newsroom, 'user.sign_in_locked', writer.id)).toHaveLength(1)
      await new Promise((resolve) => setTimeout(resolve, 2_500))
      expect(await browserAt(attacker).step('credentials', { email: writer.email, password: 'test-password' })).toEqual({ error: null, signedIn: true })
      const unlocked = await audit(newsroom, 'user.sign_in_unlocked', writer.id)
      expect(unlocked).toHaveLength(1)
      expect(unlocked[0]!.metadata).toMatchObject({ reason: 'failures_expired' })
      expect((await db.user.findUniqueOrThrow({ where: { id: writer.id } })).signInLockedUntil).toBeNull()
    } finally {
      vi.stubEnv('RATE_LIMIT_SIGN_IN_WINDOW_SECONDS', '900')
    }
  })

  it('a guesser who keeps locking the account e-mails the member once a day, not once a lock; the audit says which locks were e-mailed', async () => {
    vi.stubEnv('RATE_LIMIT_SIGN_IN_WINDOW_SECONDS', '2')
    resetRateLimitersForTests()
    try {
      const newsroom = await createTestTenant()
      const writer = newsroom.users.writer
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < 4; i++) await guess(writer.email)
        await new Promise((resolve) => setTimeout(resolve, 2_500))
      }
      const locks = await audit(newsroom, 'user.sign_in_locked', writer.id)
      expect(locks.map((entry) => (entry.metadata as { mailed?: boolean }).mailed)).toEqual([true, false, false])
      expect(inbox.filter((mail) => mail.to.includes(writer.email))).toHaveLength(1)
    } finally {
      vi.stubEnv('RATE_LIMIT_SIGN_IN_WINDOW_SECONDS', '900')
    }
  })

  it('wrong second-factor codes come from someone with the password: their lock holds everywhere, and the member is told to change it', async () => {
    const newsroom = await createTestTenant()
    const editor = newsroom.users.editor
    const secret = generateTotpSecret()
    await db.totpFactor.create({ data: { userId: editor.id, tenantId: newsroom.tenant.id, secretEncrypted: encryptSecret(secret), confirmedAt: new Date() } })
    const wrong = totpCode(secret, totpStep() + 7)
    const errors: (string | null)[] = []
    for (let i = 0; i < 3; i++) {
      const browser = browserAt(`203.0.113.${200 + i}`)
      const pendingToken = (await browser.step('credentials', { email: editor.email, password: 'test-password' })).error!.slice('SecondFactorRequired:'.length).split(':')[0]!
      errors.push((await browser.step('second-factor', { pendingToken, code: wrong })).error)
      errors.push((await browser.step('second-factor', { pendingToken, code: wrong })).error)
    }
    expect(errors.slice(0, 4)).toEqual(['SecondFactorWrong:4', 'SecondFactorWrong:3', 'SecondFactorWrong:4', 'SecondFactorWrong:3'])
    expect(errors.slice(4)).toEqual([expect.stringMatching(/^TooManySignInAttempts:\d+$/), expect.stringMatching(/^TooManySignInAttempts:\d+$/)])
    expect((await audit(newsroom, 'user.sign_in_locked', editor.id))[0]!.metadata).toMatchObject({ of: 'second_factor_codes' })
    expect(inbox.find((mail) => mail.to.includes(editor.email))?.raw).toContain('your password is known to someone')
  })
})
