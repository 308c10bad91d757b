import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { getSsoConnection, loadSsoLogin, saveSsoConnection, saveSsoConnectionSchema, ssoSignInOption, type SaveSsoConnectionInput } from '../../lib/auth/sso-connection.ts'
import { generateTotpSecret, totpCode, totpStep } from '../../lib/auth/totp.ts'
import { encryptSecret } from '../../lib/security/secret-box.ts'
import { db } from '../../lib/db/client.ts'
import { portalContextFromSession } from '../../lib/trpc/context.ts'
import { createCallerFactory } from '../../lib/trpc/init.ts'
import { appRouter } from '../../lib/trpc/routers/app-router.ts'
import { logger } from '../../lib/ops/logger.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { startTestIdentityProvider, type TestIdentityProvider } from '../support/oidc-test-provider.ts'
import { portalOrigin, ssoBrowser } from '../support/sso-browser.ts'

// Single sign-on against a real OpenID provider (oidc-provider, started here on 127.0.0.1):
// the portal's next-auth handler with the options its route builds per request, and real HTTP
// with a cookie jar through the provider's own login and consent pages.

let newsroom: TestTenant
let idp: TestIdentityProvider
let otherIdp: TestIdentityProvider
const clientSecret = 'portal-client-secret-0123456789'

function callbackFor(slug: string) {
  return `${portalOrigin}/api/auth/callback/sso-${slug}`
}

async function configure(changes: Partial<SaveSsoConnectionInput> = {}) {
  const session = { id: 'ses_settings', reauthenticatedAt: new Date() }
  return saveSsoConnection(newsroom.actor('admin'), session, saveSsoConnectionSchema.parse({ displayName: 'Example IdP', issuer: idp.issuer, clientId: 'newsroom-portal', clientSecret, ...changes }))
}

beforeAll(async () => {
  vi.stubEnv('WEBHOOK_SECRET_KEY', 'sso-sign-in-test-key')
  newsroom = await createTestTenant()
  const clients = [
    { clientId: 'newsroom-portal', clientSecret, redirectUris: [callbackFor(newsroom.tenant.slug)] },
    { clientId: 'another-app', clientSecret: 'another-app-secret-0123456789', redirectUris: [callbackFor(newsroom.tenant.slug)] },
  ]
  idp = await startTestIdentityProvider(clients)
  otherIdp = await startTestIdentityProvider(clients)
  for (const provider of [idp, otherIdp]) {
    provider.accounts.set('editor', { email: newsroom.users.editor.email, email_verified: true, name: 'The Editor' })
    provider.accounts.set('writer', { email: newsroom.users.writer.email, email_verified: true, name: 'The Writer' })
    provider.accounts.set('admin', { email: newsroom.users.admin.email, email_verified: true, name: 'The Admin' })
  }
  await configure()
})

afterAll(async () => {
  await idp?.close()
  await otherIdp?.close()
  vi.unstubAllEnvs()
})

/** Why next-auth refused the provider's answer, as it logs it (openid-client's or the provider's words). */
function refusalLogged(pattern: RegExp) {
  const errors = vi.spyOn(logger, 'error')
  return () => {
    const logged = errors.mock.calls.map(([fields]) => String((fields as { error?: string }).error))
    errors.mockRestore()
    expect(logged).toEqual(expect.arrayContaining([expect.stringMatching(pattern)]))
  }
}

const refusedWith = (reason: string) => `/signin?newsroom=${newsroom.tenant.slug}&error=${reason}`

describe('single sign-on through the newsroom identity provider', () => {
  it('signs a member in by verified e-mail, with a session record like a password sign-in', async () => {
    const browser = ssoBrowser()
    expect(await browser.signIn(newsroom.tenant.slug, { login: 'editor' })).toBe(`${portalOrigin}/`)
    const session = await browser.session()
    expect(session?.user).toMatchObject({ id: newsroom.users.editor.id, email: newsroom.users.editor.email, role: 'editor', tenantId: newsroom.tenant.id })
    const record = await db.portalSession.findUniqueOrThrow({ where: { id: session!.sessionId } })
    expect(record).toMatchObject({ userId: newsroom.users.editor.id, tenantId: newsroom.tenant.id, clientAddress: '198.51.100.30', endedAt: null })
    expect(record.userAgent).toContain('Firefox')
  })

  it('refuses an unknown person, a deactivated member and an address the provider has not verified', async () => {
    idp.accounts.set('stranger', { email: 'stranger@elsewhere.example', email_verified: true, name: 'Stranger' })
    expect(await ssoBrowser().signIn(newsroom.tenant.slug, { login: 'stranger' })).toBe(refusedWith('SsoUnknownMember'))
    expect(await db.user.findUnique({ where: { email: 'stranger@elsewhere.example' } })).toBeNull()

    idp.accounts.set('unverified', { email: newsroom.users.admin.email, email_verified: false, name: 'Admin?' })
    const unverified = ssoBrowser()
    expect(await unverified.signIn(newsroom.tenant.slug, { login: 'unverified' })).toBe(refusedWith('SsoEmailUnverified'))
    expect(await unverified.session()).toBeNull()

    const gone = await db.user.create({ data: { id: `usr_gone${Date.now()}`, tenantId: newsroom.tenant.id, email: `gone@${newsroom.tenant.slug}.example`, name: 'Gone', role: 'writer', passwordHash: 'x', active: false } })
    idp.accounts.set('gone', { email: gone.email, email_verified: true, name: 'Gone' })
    const deactivated = ssoBrowser()
    expect(await deactivated.signIn(newsroom.tenant.slug, { login: 'gone' })).toBe(refusedWith('SsoDeactivated'))
    expect(await deactivated.session()).toBeNull()
    expect(await db.portalSession.count({ where: { userId: gone.id } })).toBe(0)
    const refusals = await db.auditEntry.findMany({ where: { tenantId: newsroom.tenant.id, action: 'sso.sign_in_refused' } })
    expect(refusals.map((entry) => (entry.metadata as { reason: string }).reason)).toEqual(expect.arrayContaining(['SsoUnknownMember', 'SsoEmailUnverified', 'SsoDeactivated']))
  })

  it('refuses a changed state, a changed or missing nonce and a missing PKCE challenge', async () => {
    const wrongState = ssoBrowser()
    const wrongStateReason = refusalLogged(/state mismatch/)
    const stateAnswer = await wrongState.signIn(newsroom.tenant.slug, { login: 'editor', tamperCallback: (url) => (url.searchParams.set('state', 'forged-state'), url) })
    expect(stateAnswer).toContain(refusedWith('OAuthCallback'))
    wrongStateReason()
    expect(await wrongState.session()).toBeNull()

    // An answer without the state the portal sent (a callback someone else started) is refused too.
    const noState = ssoBrowser()
    const noStateReason = refusalLogged(/state missing/)
    expect(await noState.signIn(newsroom.tenant.slug, { login: 'editor', tamperCallback: (url) => (url.searchParams.delete('state'), url) })).toContain(refusedWith('OAuthCallback'))
    noStateReason()
    expect(await noState.session()).toBeNull()

    const wrongNonce = ssoBrowser()
    const wrongNonceReason = refusalLogged(/nonce mismatch/)
    const nonceAnswer = await wrongNonce.signIn(newsroom.tenant.slug, { login: 'editor', tamperAuthorization: (url) => (url.searchParams.set('nonce', 'forged-nonce'), url) })
    expect(nonceAnswer).toContain(refusedWith('OAuthCallback'))
    wrongNonceReason()
    expect(await wrongNonce.session()).toBeNull()

    // An ID token that carries no nonce at all (one minted for another sign-in, replayed) is refused too.
    const noNonce = ssoBrowser()
    const noNonceReason = refusalLogged(/nonce mismatch/)
    expect(await noNonce.signIn(newsroom.tenant.slug, { login: 'editor', tamperAuthorization: (url) => (url.searchParams.delete('nonce'), url) })).toContain(refusedWith('OAuthCallback'))
    noNonceReason()
    expect(await noNonce.session()).toBeNull()

    // PKCE: a code issued without the portal's challenge (as an intercepted request would be) does not redeem.
    const noChallenge = ssoBrowser()
    const noChallengeReason = refusalLogged(/invalid_grant/)
    expect(await noChallenge.signIn(newsroom.tenant.slug, { login: 'editor', tamperAuthorization: (url) => (url.searchParams.delete('code_challenge'), url.searchParams.delete('code_challenge_method'), url) })).toContain(refusedWith('OAuthCallback'))
    noChallengeReason()
    expect(await noChallenge.session()).toBeNull()
  })

  it('refuses an answer from another provider (wrong issuer) and a code issued to another client (wrong audience)', async () => {
    const wrongIssuer = ssoBrowser()
    const wrongIssuerReason = refusalLogged(/iss mismatch/)
    const issuerAnswer = await wrongIssuer.signIn(newsroom.tenant.slug, { login: 'editor', tamperAuthorization: (url) => new URL(`${url.pathname}${url.search}`, otherIdp.issuer) })
    expect(issuerAnswer).toContain(refusedWith('OAuthCallback'))
    wrongIssuerReason()
    expect(await wrongIssuer.session()).toBeNull()

    const wrongAudience = ssoBrowser()
    const wrongAudienceReason = refusalLogged(/invalid_grant/)
    const audienceAnswer = await wrongAudience.signIn(newsroom.tenant.slug, { login: 'editor', tamperAuthorization: (url) => (url.searchParams.set('client_id', 'another-app'), url) })
    expect(audienceAnswer).toContain(refusedWith('OAuthCallback'))
    wrongAudienceReason()
    expect(await wrongAudience.session()).toBeNull()
  })

  it('creates a writer just in time only when the admin allowed the domain', async () => {
    idp.accounts.set('newcomer', { email: 'newcomer@staff.example', email_verified: true, name: 'New Comer' })
    expect(await ssoBrowser().signIn(newsroom.tenant.slug, { login: 'newcomer' })).toBe(refusedWith('SsoUnknownMember'))
    expect(await db.user.findUnique({ where: { email: 'newcomer@staff.example' } })).toBeNull()

    await configure({ jitEmailDomain: 'staff.example' })
    const browser = ssoBrowser()
    expect(await browser.signIn(newsroom.tenant.slug, { login: 'newcomer' })).toBe(`${portalOrigin}/`)
    const created = await db.user.findUniqueOrThrow({ where: { email: 'newcomer@staff.example' } })
    expect(created).toMatchObject({ tenantId: newsroom.tenant.id, role: 'writer', name: 'New Comer', active: true })
    expect((await browser.session())?.user.id).toBe(created.id)
    expect(await db.auditEntry.findFirst({ where: { tenantId: newsroom.tenant.id, action: 'user.created', targetId: created.id } })).toMatchObject({ actorId: null, metadata: expect.objectContaining({ via: 'sso_just_in_time' }) })
    // Another domain is still no one.
    idp.accounts.set('outsider', { email: 'outsider@freemail.example', email_verified: true, name: 'Outsider' })
    expect(await ssoBrowser().signIn(newsroom.tenant.slug, { login: 'outsider' })).toBe(refusedWith('SsoUnknownMember'))
    await configure({ jitEmailDomain: null })
  })

  it('"require SSO" turns passwords off for members, leaving admins an audited recovery sign-in', async () => {
    const before = ssoBrowser()
    expect((await before.passwordSignIn(newsroom.users.writer.email, 'test-password')).redirect).not.toContain('error')
    expect(await before.session()).not.toBeNull()

    await configure({ requireSso: true })
    const writer = ssoBrowser()
    const refused = await writer.passwordSignIn(newsroom.users.writer.email, 'test-password')
    expect(refused.redirect).toContain(`error=SsoRequired%3A${newsroom.tenant.slug}`)
    expect(await writer.session()).toBeNull()
    // The identity provider is the way in.
    expect(await writer.signIn(newsroom.tenant.slug, { login: 'writer' })).toBe(`${portalOrigin}/`)
    expect((await writer.session())?.user.id).toBe(newsroom.users.writer.id)

    const admin = ssoBrowser()
    await admin.passwordSignIn(newsroom.users.admin.email, 'test-password')
    expect((await admin.session())?.user.id).toBe(newsroom.users.admin.id)
    expect(await db.auditEntry.findFirst({ where: { tenantId: newsroom.tenant.id, action: 'sso.recovery_sign_in', actorId: newsroom.users.admin.id } })).toMatchObject({ metadata: { address: '198.51.100.30' } })
    await configure({ requireSso: false })
  })
})

describe('SSO settings', () => {
  it('a client secret that no longer decrypts (the operator changed the key) offers no provider and tells the operator, instead of a 500', async () => {
    const row = await db.ssoConnection.findUniqueOrThrow({ where: { tenantId: newsroom.tenant.id } })
    const errors = vi.spyOn(logger, 'error')
    try {
      const [storedVersion, iv, tag, ciphertext] = row.clientSecretEncrypted.split('.')
      const altered = [storedVersion, iv, tag, `${ciphertext!.slice(0, -2)}AA`].join('.')
      await db.ssoConnection.update({ where: { tenantId: newsroom.tenant.id }, data: { clientSecretEncrypted: altered } })
      expect(await loadSsoLogin(newsroom.tenant.slug)).toBeNull()
      expect(errors).toHaveBeenCalledWith(expect.objectContaining({ tenant: newsroom.tenant.slug }), expect.stringContaining('cannot be decrypted'))
    } finally {
      errors.mockRestore()
      await db.ssoConnection.update({ where: { tenantId: newsroom.tenant.id }, data: { clientSecretEncrypted: row.clientSecretEncrypted } })
    }
    expect((await loadSsoLogin(newsroom.tenant.slug))?.clientSecret).toBe(clientSecret)
  })

  it('store the client secret encrypted, audit every change, and ask for a recent sign-in', async () => {
    const row = await db.ssoConnection.findUniqueOrThrow({ where: { tenantId: newsroom.tenant.id } })
    expect(row.clientSecretEncrypted).toMatch(/^v1\./)
    expect(row.clientSecretEncrypted).not.toContain(clientSecret)
    const entries = await db.auditEntry.findMany({ where: { tenantId: newsroom.tenant.id, action: 'sso.updated' }, orderBy: { createdAt: 'asc' } })
    expect(entries[0]!.metadata).toMatchObject({ created: true, changed: expect.arrayContaining(['issuer', 'clientId', 'clientSecret']) })
    expect(JSON.stringify(entries)).not.toContain(clientSecret)

    const stale = { id: 'ses_stale', reauthenticatedAt: new Date(Date.now() - 11 * 60_000) }
    await expect(saveSsoConnection(newsroom.actor('admin'), stale, saveSsoConnectionSchema.parse({ displayName: 'X', issuer: idp.issuer, clientId: 'x' }))).rejects.toMatchObject({ code: 'reauthentication_required' })
    await expect(saveSsoConnection(newsroom.actor('editor'), { id: 'ses_editor', reauthenticatedAt: new Date() }, saveSsoConnectionSchema.parse({ displayName: 'X', issuer: idp.issuer, clientId: 'x' }))).rejects.toMatchObject({ status: 403 })
    expect(() => saveSsoConnectionSchema.parse({ displayName: 'X', issuer: 'http://idp.example.org', clientId: 'x' })).toThrow(/https/)
  })

  it('through the portal: an admin’s save asks for the password again after 10 minutes; a writer cannot read or save them', async () => {
    const createCaller = createCallerFactory(appRouter)
    const admin = ssoBrowser()
    await admin.passwordSignIn(newsroom.users.admin.email, 'test-password')
    const adminSession = await admin.session()
    const portal = () => createCaller(portalContextFromSession(adminSession, '198.51.100.30'))
    expect(await (await portal()).sso.get()).toMatchObject({ issuer: idp.issuer, clientId: 'newsroom-portal', clientSecretSet: true })
    expect(JSON.stringify(await (await portal()).sso.get())).not.toContain(clientSecret)
    await db.portalSession.update({ where: { id: adminSession!.sessionId }, data: { reauthenticatedAt: new Date(Date.now() - 11 * 60_000) } })
    const stale = createCaller(portalContextFromSession(await admin.session(), '198.51.100.30'))
    await expect(stale.sso.save({ displayName: 'Changed', issuer: idp.issuer, clientId: 'newsroom-portal', clientSecret: '', enabled: true, requireSso: false, jitEmailDomain: null })).rejects.toMatchObject({ message: expect.stringMatching(/Confirm it is you/) })
    expect((await db.ssoConnection.findUniqueOrThrow({ where: { tenantId: newsroom.tenant.id } })).displayName).toBe('Example IdP')

    const writer = ssoBrowser()
    await writer.signIn(newsroom.tenant.slug, { login: 'writer' })
    const writerPortal = createCaller(portalContextFromSession(await writer.session(), '198.51.100.30'))
    await expect(writerPortal.sso.get()).rejects.toMatchObject({ code: 'FORBIDDEN' })
    await expect(writerPortal.sso.save({ displayName: 'Sneaky', issuer: idp.issuer, clientId: 'x', clientSecret: 'y', enabled: true, requireSso: true, jitEmailDomain: null })).rejects.toMatchObject({ code: 'FORBIDDEN' })
  })
})

describe('refused provider answers', () => {
  it('are audited for the newsroom with the reason, and lead back to the newsroom\'s sign-in page (the SSO button stays)', async () => {
    const since = new Date()
    const browser = ssoBrowser()
    const answer = await browser.signIn(newsroom.tenant.slug, { login: 'editor', tamperCallback: (url) => (url.searchParams.set('state', 'forged-state'), url) })
    expect(answer).toBe(`${portalOrigin}${refusedWith('OAuthCallback')}`)
    await expect
      // Written beside next-auth's error log, not awaited by the callback: a loaded machine takes more than the default second.
      .poll(() => db.auditEntry.findMany({ where: { tenantId: newsroom.tenant.id, action: 'sso.sign_in_failed', createdAt: { gte: since } } }), { timeout: 15_000 })
      .toEqual([expect.objectContaining({ actorId: null, targetType: 'sso_connection', metadata: { reason: expect.stringMatching(/state mismatch/) } })])
  })
})

describe('SSO and the portal\'s second factor', () => {
  /** Gives the member a confirmed authenticator app, as Security does; the key is returned. */
  async function withTotp(userId: string): Promise<string> {
    const secret = generateTotpSecret()
    await db.totpFactor.upsert({
      where: { userId },
      create: { userId, tenantId: newsroom.tenant.id, secretEncrypted: encryptSecret(secret), confirmedAt: new Date() },
      update: { secretEncrypted: encryptSecret(secret), confirmedAt: new Date(), lastUsedStep: null },
    })
    return secret
  }
  const setPolicy = (data: Partial<{ twoFactorPolicy: string; twoFactorGraceDays: number; ssoSecondFactor: string; adminsNeedPortalFactor: boolean; twoFactorPolicyChangedAt: Date }>) =>
    db.tenant.update({ where: { id: newsroom.tenant.id }, data })
  const pendingOf = (answer: string) => {
    const url = new URL(answer, portalOrigin)
    return { path: `${url.pathname}${url.search}`, fragment: new URLSearchParams(url.hash.slice(1)) }
  }

  it('"trust the identity provider\'s MFA" (the default) signs a member with a portal factor in without asking it', async () => {
    await withTotp(newsroom.users.editor.id)
    try {
      const browser = ssoBrowser()
      expect(await browser.signIn(newsroom.tenant.slug, { login: 'editor' })).toBe(`${portalOrigin}/`)
      expect((await browser.session())?.user.id).toBe(newsroom.users.editor.id)
    } finally {
      await db.totpFactor.deleteMany({ where: { userId: newsroom.users.editor.id } })
    }
  })

  it('"also ask for the portal\'s factor": no session after the provider; the sign-in page asks the code, which finishes it', async () => {
    await setPolicy({ ssoSecondFactor: 'portal_factor' })
    const secret = await withTotp(newsroom.users.editor.id)
    try {
      const browser = ssoBrowser()
      const answer = await browser.signIn(newsroom.tenant.slug, { login: 'editor' })
      const { path, fragment } = pendingOf(answer)
      // The newsroom's own sign-in page, with the pending sign-in where no server sees it.
      expect(path).toBe(`/signin?newsroom=${newsroom.tenant.slug}`)
      expect(fragment.get('factors')).toBe('totp')
      expect(await browser.session()).toBeNull()

      const wrong = await browser.secondFactor(fragment.get('second-factor')!, totpCode(secret, totpStep() + 5))
      expect(wrong.redirect).toContain('SecondFactorWrong')
      await browser.secondFactor(fragment.get('second-factor')!, totpCode(secret, totpStep()))
      const session = await browser.session()
      expect(session?.user.id).toBe(newsroom.users.editor.id)
      // The session counts as one with the portal's factor: the policy has nothing to ask.
      expect(session?.secondFactorDueBy).toBeNull()
    } finally {
      await db.totpFactor.deleteMany({ where: { userId: newsroom.users.editor.id } })
      await setPolicy({ ssoSecondFactor: 'trust_provider' })
    }
  })

  it('"also ask for the portal\'s factor" makes the policy cover SSO sign-ins: a covered member without a factor gets the deadline', async () => {
    const trusted = ssoBrowser()
    await setPolicy({ twoFactorPolicy: 'all', twoFactorGraceDays: 0, twoFactorPolicyChangedAt: new Date(Date.now() - 60_000) })
    try {
      await trusted.signIn(newsroom.tenant.slug, { login: 'writer' })
      // Trusted: the provider's MFA stands in, as before.
      expect((await trusted.session())?.secondFactorDueBy).toBeNull()

      await setPolicy({ ssoSecondFactor: 'portal_factor' })
      const browser = ssoBrowser()
      expect(await browser.signIn(newsroom.tenant.slug, { login: 'writer' })).toBe(`${portalOrigin}/`)
      const dueBy = (await browser.session())?.secondFactorDueBy
      expect(dueBy).not.toBeNull()
      expect(new Date(dueBy!).getTime()).toBeLessThanOrEqual(Date.now())
    } finally {
      await setPolicy({ twoFactorPolicy: 'optional', twoFactorGraceDays: 14, ssoSecondFactor: 'trust_provider' })
    }
  })

  it('"admins must always use the portal\'s factor" asks it of admins after the provider, even when the provider is trusted, and not of others', async () => {
    await setPolicy({ adminsNeedPortalFactor: true })
    const adminSecret = await withTotp(newsroom.users.admin.id)
    await withTotp(newsroom.users.editor.id)
    try {
      const admin = ssoBrowser()
      const { fragment } = pendingOf(await admin.signIn(newsroom.tenant.slug, { login: 'admin' }))
      expect(fragment.get('second-factor')).toBeTruthy()
      expect(await admin.session()).toBeNull()
      await admin.secondFactor(fragment.get('second-factor')!, totpCode(adminSecret, totpStep()))
      expect((await admin.session())?.user.id).toBe(newsroom.users.admin.id)

      const editor = ssoBrowser()
      expect(await editor.signIn(newsroom.tenant.slug, { login: 'editor' })).toBe(`${portalOrigin}/`)
    } finally {
      await db.totpFactor.deleteMany({ where: { userId: { in: [newsroom.users.admin.id, newsroom.users.editor.id] } } })
      await setPolicy({ adminsNeedPortalFactor: false })
    }
  })
})

describe('an SSO client secret that no longer decrypts', () => {
  it('is named on the sign-in page and in Settings, and saving without a new secret asks for it instead of keeping a broken one', async () => {
    const row = await db.ssoConnection.findUniqueOrThrow({ where: { tenantId: newsroom.tenant.id } })
    const [storedVersion, iv, tag, ciphertext] = row.clientSecretEncrypted.split('.')
    await db.ssoConnection.update({ where: { tenantId: newsroom.tenant.id }, data: { clientSecretEncrypted: [storedVersion, iv, tag, `${ciphertext!.slice(0, -2)}AA`].join('.') } })
    try {
      expect((await ssoSignInOption(newsroom.tenant.slug))?.unavailable).toMatch(/the stored secret can't be read.*enter the client secret again/)
      expect(await getSsoConnection(newsroom.actor('admin'))).toMatchObject({ clientSecretSet: true, clientSecretReadable: false })
      const session = { id: 'ses_settings', reauthenticatedAt: new Date() }
      const input = { displayName: 'Example IdP', issuer: idp.issuer, clientId: 'newsroom-portal' }
      await expect(saveSsoConnection(newsroom.actor('admin'), session, saveSsoConnectionSchema.parse(input))).rejects.toMatchObject({
        status: 422, message: expect.stringMatching(/can't be read.*enter it again/),
      })
      // Entering it again mends it.
      expect(await saveSsoConnection(newsroom.actor('admin'), session, saveSsoConnectionSchema.parse({ ...input, clientSecret }))).toMatchObject({ enabled: true, clientSecretReadable: true })
      expect((await ssoSignInOption(newsroom.tenant.slug))?.unavailable).toBeNull()
    } finally {
      await configure()
    }
  })
})
