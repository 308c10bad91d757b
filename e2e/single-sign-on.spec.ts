import { expect, test } from '@playwright/test'
import { startTestIdentityProvider, type TestIdentityProvider } from '../tests/support/oidc-test-provider.ts'
import { e2eBaseUrl } from '../playwright.config.ts'
import { seeded, signIn, sql } from './support/portal.ts'

test.use({ viewport: { width: 1280, height: 800 } })

let idp: TestIdentityProvider
// The portal's public address (NEXTAUTH_URL, as the e2e server sets it): where the provider
// returns the browser, so the member's browser starts there too, or its sign-in cookies would be
// on another host.
const portalAddress = e2eBaseUrl.replace('127.0.0.1', 'localhost')

test.beforeAll(async () => {
  idp = await startTestIdentityProvider([{ clientId: 'daily-planet-portal', clientSecret: 'e2e-client-secret-0123456789', redirectUris: [`${portalAddress}/api/auth/callback/sso-daily-planet`] }])
  idp.accounts.set('editor', { email: seeded.editor.email, email_verified: true, name: seeded.editor.name })
})

test.afterAll(async () => {
  // The other journeys sign in with passwords and see no SSO button.
  await sql(`DELETE FROM sso_connections WHERE tenant_id = (SELECT id FROM tenants WHERE slug = 'daily-planet')`)
  await idp?.close()
})

test('an admin sets up single sign-on, and a member signs in through the identity provider’s own pages in Chromium', async ({ browser }) => {
  const adminContext = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' })
  const admin = await adminContext.newPage()
  await signIn(admin, seeded.admin)
  await admin.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Single sign-on' }).click()
  await expect(admin.getByRole('heading', { level: 1, name: 'Single sign-on' })).toBeVisible()
  await expect(admin.getByTestId('sso-redirect-uri')).toHaveText(`${portalAddress}/api/auth/callback/sso-daily-planet`)
  await admin.getByLabel(/Identity provider name/).fill('Example IdP')
  await admin.getByLabel('Issuer URL').fill(idp.issuer)
  await admin.getByLabel('Client id').fill('daily-planet-portal')
  await admin.getByLabel('Client secret').fill('e2e-client-secret-0123456789')
  await admin.getByRole('button', { name: 'Save single sign-on' }).click()
  await expect(admin.getByText('Single sign-on saved.')).toBeVisible()
  await admin.screenshot({ path: 'docs/screenshots/sso-settings.png', fullPage: true })
  await adminContext.close()

  const memberContext = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' })
  const member = await memberContext.newPage()
  await member.goto(`${portalAddress}/signin?newsroom=daily-planet`)
  await member.getByRole('button', { name: 'Sign in with Example IdP' }).click()
  // oidc-provider's own development login and consent pages.
  await member.locator('input[name="login"]').fill('editor')
  await member.locator('input[name="password"]').fill('anything')
  await member.locator('button[type="submit"]').click()
  await member.getByRole('button', { name: 'Continue' }).click()
  await expect(member.getByTestId('signed-in-user')).toBeVisible()
  await expect(member.getByTestId('signed-in-user')).toContainText(seeded.editor.name)
  // The browser is noted as one that signed in to the account (lib/auth/known-browser.ts), as
  // after a password or passkey sign-in: the day the provider is down and strangers have locked
  // the account, the password way back in still works from it.
  const note = (await memberContext.cookies()).find((cookie) => cookie.name === 'newsroom.known-browser')
  expect(note, 'no known-browser note after an SSO sign-in').toMatchObject({ httpOnly: true, path: '/api/auth', sameSite: 'Lax' })
  await memberContext.close()
})
