import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { db } from '../../lib/db/client.ts'
import { passkeyCountOf, passkeySignInOptions, deletePasskeysOf } from '../../lib/auth/passkeys.ts'
import { issuePendingSignIn } from '../../lib/auth/pending-sign-in.ts'
import { createCallerFactory } from '../../lib/trpc/init.ts'
import { portalContextFromSession } from '../../lib/trpc/context.ts'
import { appRouter } from '../../lib/trpc/routers/app-router.ts'
import { nextAuthBrowser } from '../support/next-auth-browser.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { SoftwarePasskey } from '../support/software-authenticator.ts'

// Passkeys (WebAuthn) as the portal uses them: registered from Settings → Security, a sign-in by
// themselves, the second step of a password sign-in, and a confirmation for dangerous acts. The
// authenticator is software (tests/support/software-authenticator.ts) making real ES256 answers,
// which @simplewebauthn/server verifies unmocked.

const createCaller = createCallerFactory(appRouter)
const publicUrl = 'https://cms.newsroom.example'
const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0'
let newsroom: TestTenant
let otherNewsroom: TestTenant
let passwordHash: string

beforeAll(async () => {
  // The relying party comes from the configured public address, whatever Host a request names.
  vi.stubEnv('NEXTAUTH_URL', publicUrl)
  vi.stubEnv('WEBHOOK_SECRET_KEY', 'passkeys-test-key')
  newsroom = await createTestTenant()
  otherNewsroom = await createTestTenant()
  passwordHash = (await db.user.findUniqueOrThrow({ where: { id: newsroom.users.writer.id } })).passwordHash
})

afterAll(() => vi.unstubAllEnvs())

let sequence = 0
/** A member of their own (the fixtures' password), so one test's passkeys and sessions touch no other's. */
async function newMember(of: TestTenant = newsroom, role: 'writer' | 'admin' = 'writer') {
  sequence += 1
  const id = `usr_pk${Date.now()}${sequence}`
  return db.user.create({ data: { id, tenantId: of.tenant.id, email: `passkey-${id}@example.test`, name: `Passkey ${sequence}`, role, passwordHash } })
}

/** A browser signed in with the password, and the portal's procedures as it calls them. */
async function signedIn(user: { email: string }) {
  const browser = nextAuthBrowser({ userAgent: firefox, address: '198.51.100.70' })
  expect(await browser.signIn(user.email, 'test-password')).toBe(true)
  const portal = async () => createCaller(portalContextFromSession(await browser.session(), browser.address))
  return { browser, portal, sessionId: (await browser.session())!.sessionId }
}

/** Registers a new software passkey for the signed-in member through Settings → Security's procedures. */
async function registered(member: Awaited<ReturnType<typeof signedIn>>, name = 'Work laptop') {
  const passkey = new SoftwarePasskey({ origin: publicUrl, rpId: 'cms.newsroom.example' })
  const options = await (await member.portal()).security.passkeyRegistrationOptions()
  const view = await (await member.portal()).security.registerPasskey({ name, response: passkey.register(options) })
  return { passkey, view }
}

async function signInWith(passkey: SoftwarePasskey, overrides: Parameters<SoftwarePasskey['assert']>[1] = {}, pendingToken?: string) {
  const browser = nextAuthBrowser({ userAgent: firefox, address: '198.51.100.71' })
  const outcome = await browser.signInWithPasskey(passkey.assert(await passkeySignInOptions(), overrides), pendingToken)
  return { ...outcome, browser }
}

const refusedWith = (text: string) => expect.objectContaining({ ok: false, error: expect.stringContaining(text) })

describe('registering a passkey', () => {
  it('verifies the attestation, keeps the passkey for the member, lists it and audits it', async () => {
    const user = await newMember()
    const member = await signedIn(user)
    const options = await (await member.portal()).security.passkeyRegistrationOptions()
    expect(options).toMatchObject({ rp: { id: 'cms.newsroom.example' }, user: { name: user.email }, attestation: 'none', authenticatorSelection: { residentKey: 'required', userVerification: 'required' } })

    const passkey = new SoftwarePasskey({ origin: publicUrl, rpId: 'cms.newsroom.example' })
    const view = await (await member.portal()).security.registerPasskey({ name: '  Work laptop ', response: passkey.register(options) })
    expect(view).toMatchObject({ id: expect.stringMatching(/^pky_/), name: 'Work laptop', createdAt: expect.any(String), lastUsedAt: null })
    const { recoveryCodes, ...listedView } = view
    expect(recoveryCodes).toHaveLength(10)
    expect(await (await member.portal()).security.passkeys()).toEqual([listedView])
    expect(await db.passkey.findUniqueOrThrow({ where: { id: view.id } })).toMatchObject({ tenantId: newsroom.tenant.id, userId: user.id, credentialId: passkey.id, transports: ['internal'] })
    expect(await passkeyCountOf(user.id)).toBe(1)
    expect(await db.auditEntry.findFirst({ where: { action: 'passkey.added', targetId: view.id } })).toMatchObject({ tenantId: newsroom.tenant.id, actorId: user.id, metadata: expect.objectContaining({ name: 'Work laptop' }) })
  })

  it('asks for re-authentication when the session last proved itself more than 10 minutes ago', async () => {
    const member = await signedIn(await newMember())
    await db.portalSession.update({ where: { id: member.sessionId }, data: { reauthenticatedAt: new Date(Date.now() - 11 * 60_000) } })
    await expect((await member.portal()).security.passkeyRegistrationOptions()).rejects.toMatchObject({ cause: expect.objectContaining({ code: 'reauthentication_required' }) })
  })

  it('refuses an answer made for another origin (the Host a request named is not the relying party), a reused challenge, and one without user verification', async () => {
    const member = await signedIn(await newMember())
    const passkey = new SoftwarePasskey({ origin: publicUrl, rpId: 'cms.newsroom.example' })
    const portal = await member.portal()
    const forAnotherHost = passkey.register(await portal.security.passkeyRegistrationOptions(), { origin: 'https://attacker.example', rpId: 'attacker.example' })
    await expect(portal.security.registerPasskey({ name: 'Phished', response: forAnotherHost })).rejects.toMatchObject({ code: 'FORBIDDEN', message: expect.stringContaining('could not be registered') })

    const options = await portal.security.passkeyRegistrationOptions()
    await expect(portal.security.registerPasskey({ name: 'No PIN', response: passkey.register(options, { userVerified: false }) })).rejects.toMatchObject({ code: 'FORBIDDEN' })
    // That challenge is spent even though its answer failed.
    await expect(portal.security.registerPasskey({ name: 'Again', response: passkey.register(options) })).rejects.toMatchObject({ message: 'That passkey request expired or was already used. Try again.' })
    expect(await portal.security.passkeys()).toEqual([])
  })
})

describe('signing in with a passkey alone', () => {
  it('finds the member by the credential, starts a portal session as a password sign-in does, and records the use', async () => {
    const user = await newMember()
    const { passkey, view } = await registered(await signedIn(user))
    const { ok, browser } = await signInWith(passkey)
    expect(ok).toBe(true)
    const session = await browser.session()
    expect(session?.user).toMatchObject({ id: user.id, email: user.email, tenantId: newsroom.tenant.id })
    expect(await db.portalSession.findUniqueOrThrow({ where: { id: session!.sessionId } })).toMatchObject({ userId: user.id, endedAt: null, userAgent: firefox })
    // A member with a passkey has a second factor: the password alone no longer signs in, so the list is read in the passkey's own session.
    expect(await nextAuthBrowser({ userAgent: firefox, address: '198.51.100.72' }).signIn(user.email, 'test-password')).toBe(false)
    const [listed] = await createCaller(portalContextFromSession(session, browser.address)).security.passkeys()
    expect(listed).toMatchObject({ id: view.id, lastUsedAt: expect.any(String) })
  })

  it('refuses a signature counter that did not rise (a cloned authenticator)', async () => {
    const { passkey } = await registered(await signedIn(await newMember()))
    expect((await signInWith(passkey)).ok).toBe(true)
    expect((await signInWith(passkey)).ok).toBe(true)
    expect(await signInWith(passkey, { counter: 1 })).toEqual(refusedWith('PasskeyRefused'))
    expect(await signInWith(passkey, { counter: 2 })).toEqual(refusedWith('That passkey was not accepted here'))
    expect((await signInWith(passkey, { counter: 3 })).ok).toBe(true)
  })

  it('takes each challenge once: the same answer sent again is refused, and a registration challenge is no sign-in challenge', async () => {
    const member = await signedIn(await newMember())
    const { passkey } = await registered(member)
    const answer = passkey.assert(await passkeySignInOptions())
    const first = nextAuthBrowser({ userAgent: firefox, address: '198.51.100.72' })
    expect((await first.signInWithPasskey(answer)).ok).toBe(true)
    const replay = nextAuthBrowser({ userAgent: firefox, address: '198.51.100.73' })
    expect(await replay.signInWithPasskey(answer)).toEqual(expect.objectContaining({ ok: false, error: expect.stringContaining('expired or was already used') }))

    const registrationOptions = await (await member.portal()).security.passkeyRegistrationOptions()
    expect(await replay.signInWithPasskey(passkey.assert({ challenge: registrationOptions.challenge }))).toEqual(expect.objectContaining({ ok: false, error: expect.stringContaining('expired or was already used') }))
    expect(await replay.signInWithPasskey(passkey.assert({ challenge: 'a-challenge-never-handed-out' }))).toEqual(expect.objectContaining({ ok: false }))
  })

  it('refuses an assertion without user verification, one for another relying party, and an expired challenge', async () => {
    const { passkey } = await registered(await signedIn(await newMember()))
    expect(await signInWith(passkey, { userVerified: false })).toEqual(refusedWith('not accepted'))
    expect(await signInWith(passkey, { origin: 'https://attacker.example', rpId: 'attacker.example' })).toEqual(refusedWith('not accepted'))
    const options = await passkeySignInOptions()
    await db.webauthnChallenge.update({ where: { challenge: options.challenge }, data: { expiresAt: new Date(Date.now() - 1000) } })
    expect(await nextAuthBrowser({ userAgent: firefox, address: '198.51.100.74' }).signInWithPasskey(passkey.assert(options))).toEqual(refusedWith('expired or was already used'))
    expect(await signInWith(passkey)).toMatchObject({ ok: true })
  })

  it('refuses a deactivated member, an unknown credential and a malformed answer', async () => {
    const user = await newMember()
    const { passkey } = await registered(await signedIn(user))
    await db.user.update({ where: { id: user.id }, data: { active: false } })
    expect(await signInWith(passkey)).toEqual(refusedWith('Your account is deactivated'))
    expect(await signInWith(new SoftwarePasskey({ origin: publicUrl, rpId: 'cms.newsroom.example' }))).toEqual(refusedWith('not accepted'))
    expect(await nextAuthBrowser({ userAgent: firefox, address: '198.51.100.75' }).signInWithPasskey({ id: 'x' })).toEqual(refusedWith('incomplete'))
  })
})

describe('a passkey as the second step of a password sign-in', () => {
  it('signs in only with the pending sign-in member\'s own passkey, and uses the pending sign-in up', async () => {
    const user = await newMember()
    const { passkey } = await registered(await signedIn(user))
    const stranger = await registered(await signedIn(await newMember(otherNewsroom)))

    const token = await issuePendingSignIn({ id: user.id, tenantId: newsroom.tenant.id }, new Date())
    expect(await signInWith(stranger.passkey, {}, token)).toEqual(refusedWith('not accepted'))
    const { ok, browser } = await signInWith(passkey, {}, token)
    expect(ok).toBe(true)
    expect((await browser.session())?.user.id).toBe(user.id)
    expect(await signInWith(passkey, {}, token)).toEqual(refusedWith('That sign-in expired'))
    expect(await signInWith(passkey, {}, 'never-issued')).toEqual(refusedWith('That sign-in expired'))
  })

  it('makes the password step offer the passkey: no session from the password alone, the passkey finishes it, and the admin reset removes it', async () => {
    const user = await newMember()
    const { passkey } = await registered(await signedIn(user))
    const browser = nextAuthBrowser({ userAgent: firefox, address: '198.51.100.73' })
    const first = await browser.step('credentials', { email: user.email, password: 'test-password' })
    expect(first.signedIn).toBe(false)
    const [kind, token, offered] = first.error!.split(':')
    // The passkey, and the recovery codes its registration issued (a lost device is no admin's reset).
    expect([kind, offered]).toEqual(['SecondFactorRequired', 'passkey,recovery_code'])
    const second = await browser.signInWithPasskey(passkey.assert(await passkeySignInOptions()), token)
    expect(second.ok).toBe(true)
    expect((await browser.session())?.user.id).toBe(user.id)

    const admin = await signedIn(newsroom.users.admin)
    await (await admin.portal()).users.resetSecondFactors({ userId: user.id })
    expect(await passkeyCountOf(user.id)).toBe(0)
    expect(await browser.session()).toBeNull()
    expect(await nextAuthBrowser({ userAgent: firefox, address: '198.51.100.74' }).signIn(user.email, 'test-password')).toBe(true)
  })
})

describe('passkeys in sudo mode and across newsrooms', () => {
  it('confirms a dangerous act with the member\'s passkey instead of the password', async () => {
    const admin = await newMember(newsroom, 'admin')
    const member = await signedIn(admin)
    const { passkey } = await registered(member)
    await db.portalSession.update({ where: { id: member.sessionId }, data: { reauthenticatedAt: new Date(Date.now() - 11 * 60_000) } })
    const portal = await member.portal()
    const create = () => portal.apiKeys.create({ expiry: 'never', allowedAddresses: [], name: 'Admin key', scopes: ['admin'] })
    await expect(create()).rejects.toMatchObject({ cause: expect.objectContaining({ code: 'reauthentication_required' }) })

    const options = await portal.security.passkeyReauthenticationOptions()
    expect(options.allowCredentials).toEqual([expect.objectContaining({ id: passkey.id })])
    const { validUntil } = await portal.security.reauthenticateWithPasskey({ response: passkey.assert(options) })
    expect(new Date(validUntil).getTime()).toBeGreaterThan(Date.now() + 9 * 60_000)
    expect((await (await member.portal()).apiKeys.create({ expiry: 'never', allowedAddresses: [], name: 'Admin key', scopes: ['admin'] })).key.scopes).toEqual(['admin'])
  })

  it('refuses another member\'s passkey, another newsroom\'s, and one answering a sign-in challenge', async () => {
    const member = await signedIn(await newMember())
    await registered(member)
    const colleague = await registered(await signedIn(await newMember()))
    const foreign = await registered(await signedIn(await newMember(otherNewsroom)))
    const portal = await member.portal()
    for (const other of [colleague, foreign]) {
      const options = await portal.security.passkeyReauthenticationOptions()
      await expect(portal.security.reauthenticateWithPasskey({ response: other.passkey.assert(options) })).rejects.toMatchObject({ code: 'FORBIDDEN', message: expect.stringContaining('not accepted') })
    }
    const own = (await db.passkey.findFirstOrThrow({ where: { user: { email: (await member.browser.session())!.user.email } } }))
    expect(own).toBeTruthy()
    await expect(portal.security.reauthenticateWithPasskey({ response: colleague.passkey.assert(await passkeySignInOptions()) })).rejects.toMatchObject({ message: expect.stringContaining('expired or was already used') })
    // Another newsroom's passkey cannot be renamed or removed from here: it looks missing.
    await expect(portal.security.renamePasskey({ passkeyId: foreign.view.id, name: 'Mine now' })).rejects.toMatchObject({ code: 'NOT_FOUND' })
    await expect(portal.security.removePasskey({ passkeyId: foreign.view.id })).rejects.toMatchObject({ code: 'NOT_FOUND' })
    await expect(portal.security.removePasskey({ passkeyId: colleague.view.id })).rejects.toMatchObject({ code: 'NOT_FOUND' })
    expect(await db.passkey.count({ where: { id: { in: [foreign.view.id, colleague.view.id] } } })).toBe(2)
  })

  it('a member without passkeys is told so rather than handed an empty challenge', async () => {
    const member = await signedIn(await newMember())
    await expect((await member.portal()).security.passkeyReauthenticationOptions()).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'You have no passkeys: confirm with your password instead.' })
  })
})

describe('renaming and removing', () => {
  it('renames and removes the member\'s own passkey (sudo), audited; a removed passkey signs in nowhere', async () => {
    const user = await newMember()
    const member = await signedIn(user)
    const { passkey, view } = await registered(member, 'Phone')
    const portal = await member.portal()
    expect(await portal.security.renamePasskey({ passkeyId: view.id, name: 'Old phone' })).toMatchObject({ id: view.id, name: 'Old phone' })
    await expect(portal.security.renamePasskey({ passkeyId: view.id, name: '   ' })).rejects.toMatchObject({ code: 'UNPROCESSABLE_CONTENT' })
    expect(await db.auditEntry.findFirst({ where: { action: 'passkey.renamed', targetId: view.id } })).toMatchObject({ actorId: user.id, metadata: { from: 'Phone', to: 'Old phone' } })

    await db.portalSession.update({ where: { id: member.sessionId }, data: { reauthenticatedAt: new Date(Date.now() - 11 * 60_000) } })
    await expect((await member.portal()).security.removePasskey({ passkeyId: view.id })).rejects.toMatchObject({ cause: expect.objectContaining({ code: 'reauthentication_required' }) })
    await db.portalSession.update({ where: { id: member.sessionId }, data: { reauthenticatedAt: new Date() } })
    expect(await (await member.portal()).security.removePasskey({ passkeyId: view.id })).toEqual({ passkeyId: view.id })
    expect(await (await member.portal()).security.passkeys()).toEqual([])
    expect(await db.auditEntry.findFirst({ where: { action: 'passkey.removed', targetId: view.id } })).toMatchObject({ actorId: user.id, metadata: { name: 'Old phone' } })
    expect(await signInWith(passkey)).toEqual(refusedWith('not accepted'))
  })

  it('deletePasskeysOf removes every passkey of one member inside the caller\'s transaction (the admin\'s factor reset)', async () => {
    const user = await newMember()
    const member = await signedIn(user)
    await registered(member, 'One')
    await registered(member, 'Two')
    const bystander = await newMember()
    await registered(await signedIn(bystander))
    expect(await db.$transaction((tx) => deletePasskeysOf(tx, user.id))).toBe(2)
    expect([await passkeyCountOf(user.id), await passkeyCountOf(bystander.id)]).toEqual([0, 1])
  })
})

describe('POST /api/passkeys/sign-in-options', () => {
  it('hands each address challenges within a budget of their own, then a 429 that says when to come back and stores none', async () => {
    vi.stubEnv('RATE_LIMIT_PASSKEY_OPTIONS_PER_MINUTE', '2')
    // The /v1 budget for requests without a token is another one: spending it does not stop a
    // person's passkey sign-in, and passkey challenges do not spend it.
    vi.stubEnv('RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE', '1')
    vi.stubEnv('RATE_LIMIT_KEY_PREFIX', `newsroom:rl:passkey-options:${Date.now()}`)
    const { consumeUnauthenticatedRequest, resetRateLimitersForTests } = await import('../../lib/api/rate-limit.ts')
    resetRateLimitersForTests()
    try {
      const { POST } = await import('../../app/api/passkeys/sign-in-options/route.ts')
      const ask = (address: string) => POST(new Request('http://localhost/api/passkeys/sign-in-options', { method: 'POST', headers: { 'x-forwarded-for': address } }))
      expect((await consumeUnauthenticatedRequest('203.0.113.7')).allowed).toBe(true)
      expect((await consumeUnauthenticatedRequest('203.0.113.7')).allowed).toBe(false)
      for (let attempt = 0; attempt < 2; attempt++) {
        const answer = await ask('203.0.113.7')
        expect(answer.status).toBe(200)
        expect((await answer.json()).challenge).toEqual(expect.any(String))
      }
      const challengesBefore = await db.webauthnChallenge.count()
      const refused = await ask('203.0.113.7')
      expect(refused.status).toBe(429)
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      expect((await refused.json()).error.message).toMatch(/Too many passkey sign-in attempts.*Try again in \d+ seconds/)
      expect(refused.headers.get('ratelimit-policy')).toMatch(/^"passkey-sign-in-options";q=2/)
      expect(await db.webauthnChallenge.count()).toBe(challengesBefore)
      // Another address has its own budget.
      expect((await ask('198.51.100.20')).status).toBe(200)
    } finally {
      vi.unstubAllEnvs()
      vi.stubEnv('NEXTAUTH_URL', publicUrl)
      vi.stubEnv('WEBHOOK_SECRET_KEY', 'passkeys-test-key')
      resetRateLimitersForTests()
    }
  })
})
