import { spawn, type ChildProcess } from 'node:child_process'
import { ensureLocalSecrets } from '../lib/config/local-secrets.ts'
import { expect, test, type Browser, type Page } from '@playwright/test'
import { totpCode, totpStep } from '../lib/auth/totp.ts'
import { startTestIdentityProvider, type TestIdentityProvider } from '../tests/support/oidc-test-provider.ts'
import { startCommand } from '../scripts/start-command.ts'
import { e2eBaseUrl } from '../playwright.config.ts'
import { e2eDatabaseUrl } from './support/e2e-env.ts'
import { sql } from './support/portal.ts'

// Issue 46, points 4-6 as an admin and a member meet them in Chromium: single sign-on that also
// asks for the portal's factor, a two-factor policy that would lock out the admin saving it,
// and a portal at an IP address that says why it offers no passkeys.

test.use({ viewport: { width: 1280, height: 800 } })

// The portal's public address (NEXTAUTH_URL as the e2e server sets it): the identity provider
// returns there, so these journeys start there too (sign-in cookies are per host).
const portalAddress = e2eBaseUrl.replace('127.0.0.1', 'localhost')
const password = 'a long e2e passphrase'

/** A newsroom of its own with an admin and a writer: its policy and SSO touch no other journey. */
async function newsroom(prefix: string) {
  const { hashPassword } = await import('../lib/auth/passwords.ts')
  const stamp = `${Date.now()}${Math.floor(Math.random() * 1000)}`
  const slug = `${prefix}-${stamp}`
  const tenantId = `ten_e2e${prefix.replace(/-/g, '')}${stamp}`
  await sql(`INSERT INTO tenants (id, name, slug, public_site_url, updated_at) VALUES ($1, $2, $3, 'https://example.org', now())`, [tenantId, `Gazette ${stamp}`, slug])
  const member = async (role: 'admin' | 'writer') => {
    const email = `${role}-${stamp}@${slug}.example`
    await sql(`INSERT INTO users (id, tenant_id, email, name, role, password_hash, updated_at) VALUES ($1, $2, $3, $4, $5::"Role", $6, now())`, [
      `usr_e2e${role}${stamp}`, tenantId, email, `The ${role}`, role, await hashPassword(password),
    ])
    return { email, password }
  }
  return { slug, admin: await member('admin'), writer: await member('writer') }
}

async function passwordSignIn(page: Page, who: { email: string; password: string }, origin = portalAddress) {
  await page.goto(`${origin}/signin`)
  await page.getByLabel('E-mail').fill(who.email)
  await page.getByLabel('Password').fill(who.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await expect(page.getByTestId('signed-in-user')).toBeVisible()
}

async function freshPage(browser: Browser) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' })
  return { context, page: await context.newPage() }
}

test.describe('single sign-on that also asks for the portal’s factor', () => {
  let idp: TestIdentityProvider
  let room: Awaited<ReturnType<typeof newsroom>>

  test.beforeAll(async () => {
    room = await newsroom('sso-mfa')
    idp = await startTestIdentityProvider([{ clientId: 'gazette-portal', clientSecret: 'e2e-client-secret-0123456789', redirectUris: [`${portalAddress}/api/auth/callback/sso-${room.slug}`] }])
    idp.accounts.set('writer', { email: room.writer.email, email_verified: true, name: 'The writer' })
  })

  test.afterAll(async () => {
    await idp?.close()
  })

  test('the admin chooses it; a member with an authenticator app is asked for its code after the identity provider', async ({ browser }) => {
    // Three people's journeys in one test (member, admin, member again through the provider).
    test.setTimeout(180_000)
    // The member sets up an authenticator app (password sign-in, Security).
    const { context: memberContext, page: member } = await freshPage(browser)
    await passwordSignIn(member, room.writer)
    await member.goto(`${portalAddress}/settings/security`)
    await member.getByRole('button', { name: 'Set up an authenticator app' }).click()
    const secret = (await member.getByTestId('totp-secret').innerText()).replace(/\s/g, '')
    await member.getByLabel('Code the app shows now').fill(totpCode(secret, totpStep()))
    await member.getByRole('button', { name: 'Turn on two-factor sign-in' }).click()
    await expect(member.getByTestId('recovery-codes').getByRole('listitem')).toHaveCount(10)
    await memberContext.close()

    // The admin sets up SSO, then keeps the portal's factor on top of it.
    const { context: adminContext, page: admin } = await freshPage(browser)
    await passwordSignIn(admin, room.admin)
    await admin.goto(`${portalAddress}/settings/single-sign-on`)
    await admin.getByLabel(/Identity provider name/).fill('Gazette IdP')
    await admin.getByLabel('Issuer URL').fill(idp.issuer)
    await admin.getByLabel('Client id').fill('gazette-portal')
    await admin.getByLabel('Client secret').fill('e2e-client-secret-0123456789')
    await admin.getByRole('button', { name: 'Save single sign-on' }).click()
    await expect(admin.getByText('Single sign-on saved.')).toBeVisible()
    await admin.getByRole('link', { name: 'Two-factor policy' }).first().click()
    await expect(admin.getByRole('heading', { level: 1, name: 'Two-factor policy' })).toBeVisible()
    await expect(admin.getByRole('radio', { name: /Trust the identity provider’s MFA/ })).toBeChecked()
    await admin.getByRole('radio', { name: /Also ask for the portal’s second factor/ }).check()
    await admin.getByRole('button', { name: 'Save policy' }).click()
    await expect(admin.getByText('Two-factor policy saved.')).toBeVisible()
    await admin.screenshot({ path: 'docs/screenshots/two-factor-policy-sso.png', fullPage: true })
    await adminContext.close()

    // The member signs in through the identity provider's own pages, then meets the portal's step.
    const { context: ssoContext, page: sso } = await freshPage(browser)
    await sso.goto(`${portalAddress}/signin?newsroom=${room.slug}`)
    await sso.getByRole('button', { name: 'Sign in with Gazette IdP' }).click()
    await sso.locator('input[name="login"]').fill('writer')
    await sso.locator('input[name="password"]').fill('anything')
    await sso.locator('button[type="submit"]').click()
    await sso.getByRole('button', { name: 'Continue' }).click()
    await expect(sso.getByRole('heading', { name: 'Two-factor sign-in' })).toBeVisible()
    // The pending sign-in does not stay in the address bar.
    await expect(sso).toHaveURL(new RegExp(`/signin\\?newsroom=${room.slug}$`))
    await expect(sso.getByTestId('signed-in-user')).toHaveCount(0)
    await sql(`UPDATE totp_factors SET last_used_step = $1 WHERE user_id = (SELECT id FROM users WHERE email = $2)`, [totpStep() - 2, room.writer.email])
    await sso.getByLabel('Code from your authenticator app').fill(totpCode(secret, totpStep()))
    await sso.getByRole('button', { name: 'Verify' }).click()
    await expect(sso.getByTestId('signed-in-user')).toContainText('The writer')
    await ssoContext.close()
  })
})

test('an admin without a factor cannot save a policy that locks them out, and is told why; with a grace it is saved', async ({ browser }) => {
  const room = await newsroom('lockout')
  const { context, page } = await freshPage(browser)
  await passwordSignIn(page, room.admin)
  await page.goto(`${portalAddress}/settings/two-factor`)
  await page.getByRole('radio', { name: /Required for everyone/ }).check()
  await page.getByLabel(/Grace period/).fill('0')
  await page.getByRole('button', { name: 'Save policy' }).click()
  const refusal = page.getByText('This policy would lock you out')
  await expect(refusal).toBeVisible()
  await expect(refusal).toContainText('Set up an authenticator app or a passkey in Security first, or give a grace period')
  await page.screenshot({ path: 'docs/screenshots/two-factor-policy-lockout.png', fullPage: true })

  await page.getByLabel(/Grace period/).fill('2')
  await page.getByRole('button', { name: 'Save policy' }).click()
  await expect(page.getByText('Two-factor policy saved.')).toBeVisible()
  await expect(page.getByText('The policy could not be loaded')).toHaveCount(0)
  // The reminder names a deadline still ahead.
  await page.reload()
  await expect(page.getByTestId('second-factor-banner')).toContainText('set up two-factor by')
  await context.close()
})

test.describe('a portal served at an IP address', () => {
  // A second production server on the e2e database whose public address is an IP, as an
  // operator who skipped the host name would run it.
  const port = 6951
  const ipOrigin = `http://127.0.0.1:${port}`
  let server: ChildProcess | undefined

  test.beforeAll(async () => {
    test.setTimeout(180_000)
    const [command, args] = startCommand()
    // The suite's own shared secrets (e2e/support/start-server.ts): production with a
    // DATABASE_URL refuses to start without them.
    process.env.LOCAL_SECRETS_FILE = '.data/e2e-secrets.json'
    const secrets = ensureLocalSecrets({} as NodeJS.ProcessEnv)
    server = spawn(command, args, {
      stdio: 'ignore',
      env: {
        ...secrets, ...process.env, DATABASE_URL: e2eDatabaseUrl(), PORT: String(port), NEXTAUTH_URL: ipOrigin, NODE_ENV: 'production',
        LOCAL_SECRETS_FILE: '.data/e2e-secrets.json', LOG_LEVEL: 'warn', SEED: 'false',
      },
    })
    const deadline = Date.now() + 150_000
    for (;;) {
      const ready = await fetch(`${ipOrigin}/signin`, { signal: AbortSignal.timeout(5_000) }).then((response) => response.ok, () => false)
      if (ready) break
      if (Date.now() > deadline || server.exitCode !== null) throw new Error(`The server at ${ipOrigin} did not start.`)
      await new Promise((resolve) => setTimeout(resolve, 1_000))
    }
  })

  test.afterAll(() => {
    server?.kill('SIGTERM')
  })

  test('the Security page says why passkeys are unavailable before anyone tries, and the sign-in page offers none', async ({ browser }) => {
    const room = await newsroom('ip-address')
    const { context, page } = await freshPage(browser)
    await page.goto(`${ipOrigin}/signin`)
    await expect(page.getByRole('heading', { name: 'Sign in with a passkey' })).toHaveCount(0)
    await passwordSignIn(page, room.writer, ipOrigin)
    await page.goto(`${ipOrigin}/settings/security`)
    const notice = page.getByTestId('passkeys-unavailable')
    await expect(notice).toContainText('is an IP address')
    await expect(notice).toContainText('NEXTAUTH_URL')
    await expect(notice).toContainText('host name')
    await expect(page.getByRole('button', { name: 'Add a passkey' })).toHaveCount(0)
    await page.screenshot({ path: 'docs/screenshots/passkeys-unavailable.png', fullPage: true })
    await context.close()
  })
})
