import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { resetRateLimitersForTests } from '../../lib/api/rate-limit.ts'
import { authOptions } from '../../lib/auth/auth-options.ts'
import { knownBrowserAccountSelect, knownBrowserCookie, rememberedBrowser } from '../../lib/auth/known-browser.ts'
import { db } from '../../lib/db/client.ts'
import { portalContextFromSession } from '../../lib/trpc/context.ts'
import { createCallerFactory } from '../../lib/trpc/init.ts'
import { appRouter } from '../../lib/trpc/routers/app-router.ts'
import { nextAuthBrowser } from '../support/next-auth-browser.ts'
import { createTestTenant } from '../support/fixtures.ts'

// The "known browser" note (lib/auth/known-browser.ts) as a hostile outsider and an IT reviewer
// try it. The note lets a browser that signed in to an account before past the lock's few tries
// (RATE_LIMIT_SIGN_IN_WHILE_LOCKED): the password is checked "as always". It outlives sign-out
// on purpose, so whoever uses the browser later (a shared desk, a returned or stolen laptop) can
// read it (DevTools shows HTTP-only cookies) and send it from anywhere.

const createCaller = createCallerFactory(appRouter)
const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0'
const browserAt = (address: string, cookies?: Record<string, string>) => nextAuthBrowser({ userAgent: firefox, address, ...(cookies && { cookies }) })
const guess = (email: string, from: string, cookies?: Record<string, string>) => browserAt(from, cookies).step('credentials', { email, password: `not-the-password-${randomUUID()}` })

/** Strangers lock the account (RATE_LIMIT_SIGN_IN_PER_ACCOUNT=4) and use up the lock's tries (RATE_LIMIT_SIGN_IN_WHILE_LOCKED=2). */
async function lockAndExhaust(email: string, net: number) {
  for (let i = 0; i < 4; i++) expect((await guess(email, `203.0.${net}.${10 + i}`)).error).toBe('CredentialsSignin')
  expect((await guess(email, `203.0.${net}.20`)).error).toBe('CredentialsSignin')
  expect((await guess(email, `203.0.${net}.21`)).error).toBe('CredentialsSignin')
  expect((await guess(email, `203.0.${net}.22`)).error).toMatch(/^TooManySignInAttempts:\d+:locked$/)
}

/** The known-browser note a browser got when it signed in to the account (with its password as it is now). */
const noteFor = async (userId: string) => rememberedBrowser(undefined, await db.user.findUniqueOrThrow({ where: { id: userId }, select: knownBrowserAccountSelect })).value

beforeAll(() => {
  vi.stubEnv('WEBHOOK_SECRET_KEY', 'known-browser-break-test-key')
  vi.stubEnv('RATE_LIMIT_SIGN_IN_PER_ACCOUNT', '4')
  vi.stubEnv('RATE_LIMIT_SIGN_IN_WHILE_LOCKED', '2')
  vi.stubEnv('RATE_LIMIT_KEY_PREFIX', `known-browser-break:${randomUUID()}`)
})
beforeEach(() => resetRateLimitersForTests())
afterAll(() => {
  vi.unstubAllEnvs()
  resetRateLimitersForTests()
})

describe('a known-browser note in the wrong hands', () => {
  it('replayed from many addresses, it does not restore unlimited guessing against a locked account', async () => {
    const newsroom = await createTestTenant()
    const writer = newsroom.users.writer
    // Read off the writer's old laptop after they signed out (it outlives sign-out by design).
    const note = { [knownBrowserCookie]: (await noteFor(writer.id)) }
    await lockAndExhaust(writer.email, 1)
    // Without the note, the whole world now has zero tries left. With it, each fresh address may
    // guess until the address itself has failed 3 times: 12 addresses here, any number in life.
    let checked = 0
    for (let host = 1; host <= 12; host++) {
      for (let i = 0; i < 3; i++) if ((await guess(writer.email, `198.18.${host}.1`, note)).error === 'CredentialsSignin') checked++
    }
    // A device cookie that keeps failing is no longer a known browser (OWASP's device cookies:
    // lock the cookie out after a few failures). Allow as many as an address gets while locked.
    expect(checked).toBeLessThanOrEqual(3)
  })

  it('a note from before a password change does not count: the member changed it because the laptop was gone', async () => {
    const newsroom = await createTestTenant()
    const writer = newsroom.users.writer
    const stolenLaptopsNote = { [knownBrowserCookie]: (await noteFor(writer.id)) }
    // The member, at a new browser, changes the password (every other session ends).
    const desk = browserAt('198.51.100.40')
    expect(await desk.signIn(writer.email, 'test-password')).toBe(true)
    const portal = createCaller(portalContextFromSession(await desk.session(), '198.51.100.40'))
    await portal.security.changePassword({ currentPassword: 'test-password', newPassword: 'a brand new passphrase 46', confirmPassword: 'a brand new passphrase 46' })
    await lockAndExhaust(writer.email, 2)
    // The thief's old note is a stranger's browser now: refused before any password is checked.
    expect((await guess(writer.email, '198.19.2.1', stolenLaptopsNote)).error).toMatch(/^TooManySignInAttempts:\d+:locked$/)
  })
})

describe('a note read off a lost laptop, after its owner or an admin acted', () => {
  it('does not count once the member pressed "Sign out all other sessions"', async () => {
    const newsroom = await createTestTenant()
    const writer = newsroom.users.writer
    const lostLaptopsNote = { [knownBrowserCookie]: (await noteFor(writer.id)) }
    const desk = browserAt('198.51.100.43')
    expect(await desk.signIn(writer.email, 'test-password')).toBe(true)
    await createCaller(portalContextFromSession(await desk.session(), '198.51.100.43')).security.endOtherSessions()
    await lockAndExhaust(writer.email, 4)
    expect((await guess(writer.email, '198.19.4.1', lostLaptopsNote)).error).toMatch(/^TooManySignInAttempts:\d+:locked$/)
  })

  it("does not count once an admin reset the member's second factors", async () => {
    const newsroom = await createTestTenant()
    const writer = newsroom.users.writer
    const lostLaptopsNote = { [knownBrowserCookie]: (await noteFor(writer.id)) }
    const adminDesk = browserAt('198.51.100.44')
    expect(await adminDesk.signIn(newsroom.users.admin.email, 'test-password')).toBe(true)
    const admin = createCaller(portalContextFromSession(await adminDesk.session(), '198.51.100.44'))
    await admin.security.reauthenticate({ password: 'test-password' })
    await admin.users.resetSecondFactors({ userId: writer.id })
    await lockAndExhaust(writer.email, 5)
    expect((await guess(writer.email, '198.19.5.1', lostLaptopsNote)).error).toMatch(/^TooManySignInAttempts:\d+:locked$/)
  })

  it('still counts when nothing was done: the same note gets its own few tries while the account is locked', async () => {
    const newsroom = await createTestTenant()
    const writer = newsroom.users.writer
    const note = { [knownBrowserCookie]: (await noteFor(writer.id)) }
    await lockAndExhaust(writer.email, 6)
    expect((await guess(writer.email, '198.19.6.1', note)).error).toBe('CredentialsSignin')
  })
})

describe('a member who is signed in while strangers keep the account locked', () => {
  it('can still confirm it is them (sudo) and change the password from that session', async () => {
    const newsroom = await createTestTenant()
    const admin = newsroom.users.admin
    const address = '198.51.100.41'
    const laptop = browserAt(address)
    expect(await laptop.signIn(admin.email, 'test-password')).toBe(true)
    await lockAndExhaust(admin.email, 3)
    // The e-mail told the admin: "consider a longer password". They are signed in, at an
    // address that never failed; the session is a stronger proof than any note.
    const portal = createCaller(portalContextFromSession(await laptop.session(), address))
    await expect(portal.security.reauthenticate({ password: 'test-password' })).resolves.toMatchObject({ validUntil: expect.any(String) })
    await expect(portal.security.changePassword({ currentPassword: 'test-password', newPassword: 'a longer passphrase for 46', confirmPassword: 'a longer passphrase for 46' })).resolves.toMatchObject({ endedSessions: 0 })
  })
})

describe('a malformed known-browser cookie', () => {
  it('is ignored, not a sign-in failure: the right password still signs in', async () => {
    const newsroom = await createTestTenant()
    // A cookie of the same name from anything that shares the host name (cookies ignore ports;
    // a sibling subdomain can set one for the parent domain), or a truncated write. As the
    // browser sends it, undecoded: the test browser's jar would percent-encode it.
    const credentials = authOptions.providers.find((provider) => provider.id === 'credentials') as unknown as { options: { authorize: (credentials: Record<string, string>, request: unknown) => Promise<unknown> } }
    const request = { headers: { 'x-forwarded-for': '198.51.100.42', 'user-agent': firefox, cookie: `${knownBrowserCookie}=%E0%A4%A` } }
    await expect(credentials.options.authorize({ email: newsroom.users.editor.email, password: 'test-password' }, request)).resolves.toMatchObject({ id: newsroom.users.editor.id })
  })
})
