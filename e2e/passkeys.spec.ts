import { expect, test, type Browser, type BrowserContext, type Page } from '@playwright/test'
import { signIn, sql } from './support/portal.ts'
import { e2eBaseUrl } from './support/e2e-env.ts'
import { clickWhileGated, overdueMember } from './support/two-factor-gate.ts'

// The portal's relying party is its configured public address (NEXTAUTH_URL, which the e2e
// server leaves at http://localhost:<port>), and WebAuthn refuses IP addresses as relying
// parties, so this journey uses the localhost name rather than the other journeys' 127.0.0.1.
const origin = e2eBaseUrl.replace('127.0.0.1', 'localhost')

test.use({ viewport: { width: 1280, height: 800 }, baseURL: origin })

/**
 * A browser of the member's own with Chromium's virtual authenticator: a platform authenticator
 * that keeps discoverable credentials and verifies the user (as a fingerprint would) without a prompt.
 */
async function browserWithPasskeyDevice(browser: Browser): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US', baseURL: origin })
  const page = await context.newPage()
  const cdp = await context.newCDPSession(page)
  await cdp.send('WebAuthn.enable')
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  })
  return { context, page }
}

test('a member adds a passkey, signs in with it alone, and confirms a dangerous act with it', async ({ browser }) => {
  const { hashPassword } = await import('../lib/auth/passwords.ts')
  const email = `passkey-admin-${Date.now()}@dailyplanet.example`
  const password = 'a long e2e passphrase'
  await sql(
    `INSERT INTO users (id, tenant_id, email, name, role, password_hash, updated_at)
     SELECT $1, id, $2, 'Passkey Admin', 'admin', $3, now() FROM tenants WHERE slug = 'daily-planet'`,
    [`usr_e2epk${Date.now()}`, email, await hashPassword(password)],
  )
  const { context, page } = await browserWithPasskeyDevice(browser)

  await signIn(page, { email, password })
  await page.goto('/settings/security')
  await expect(page.getByTestId('no-passkeys')).toBeVisible()
  await page.getByRole('button', { name: 'Add a passkey' }).click()
  await expect(page.getByText('Name the passkey, e.g. "Work laptop".')).toBeVisible()
  await page.getByLabel('Name for a new passkey').fill('E2E laptop')
  await page.getByRole('button', { name: 'Add a passkey' }).click()
  await expect(page.getByRole('status').filter({ hasText: 'Passkey “E2E laptop” added.' })).toBeVisible()
  const passkeys = page.getByRole('table', { name: 'Your passkeys' })
  await expect(passkeys.getByRole('row').filter({ hasText: 'E2E laptop' })).toContainText('Never')
  await page.screenshot({ path: 'docs/screenshots/security-passkeys.png', fullPage: true })

  await page.getByRole('button', { name: 'Rename E2E laptop' }).click()
  await page.getByLabel('New name for E2E laptop').fill('Work laptop')
  // Exact: the recovery codes the first passkey brought have "I have saved them".
  await page.getByRole('button', { name: 'Save', exact: true }).click()
  await expect(page.getByRole('status').filter({ hasText: 'Renamed to “Work laptop”.' })).toBeVisible()

  await page.getByRole('button', { name: 'Sign out', exact: true }).click()
  await expect(page).toHaveURL(/\/signin/)
  await expect(page.getByRole('heading', { name: 'Sign in with a passkey' })).toBeVisible()
  await page.getByRole('button', { name: 'Use a passkey' }).click()
  await expect(page.getByTestId('signed-in-user')).toContainText('Passkey Admin')
  await page.goto('/settings/security')
  await expect(page.getByRole('table', { name: 'Your passkeys' }).getByRole('row').filter({ hasText: 'Work laptop' })).not.toContainText('Never')

  // Eleven minutes pass (the session's last proof moved back rather than waited for).
  await sql("UPDATE portal_sessions SET reauthenticated_at = now() - interval '11 minutes' WHERE user_id = (SELECT id FROM users WHERE email = $1)", [email])
  await page.goto('/settings/api-keys/new')
  await page.getByLabel('Name').fill('Passkey-confirmed admin key')
  await page.getByRole('group', { name: 'Scopes' }).getByRole('checkbox', { name: /^admin/ }).check()
  await page.getByRole('button', { name: 'Create key' }).click()
  const dialog = page.getByRole('dialog', { name: 'Confirm it’s you' })
  await expect(dialog).toBeVisible()
  await dialog.getByRole('button', { name: 'Use a passkey' }).click()
  await expect(dialog).toBeHidden()
  await expect(page.getByTestId('new-api-token')).toHaveText(/^nrs_/)
  await expect(page.getByRole('heading', { name: 'Key “Passkey-confirmed admin key” created' })).toBeVisible()

  // Removing it is a dangerous act too; the session was just confirmed, so it goes ahead.
  await page.goto('/settings/security')
  await page.getByRole('button', { name: 'Remove Work laptop' }).click()
  await page.getByRole('button', { name: 'Yes, remove Work laptop' }).click()
  await expect(page.getByRole('status').filter({ hasText: 'Passkey “Work laptop” removed.' })).toBeVisible()
  await expect(page.getByTestId('no-passkeys')).toBeVisible()
  await context.close()
  // Other journeys rely on the seeded admin being the newsroom's only admin.
  await sql('UPDATE users SET active = false, deactivated_at = now() WHERE email = $1', [email])
})

test('a member whose only second factor is a passkey signs in with the password, then the passkey', async ({ browser }) => {
  const { hashPassword } = await import('../lib/auth/passwords.ts')
  const stamp = Date.now()
  const member = { email: `passkey-factor-${stamp}@dailyplanet.example`, password: 'a long e2e passphrase' }
  await sql(
    `INSERT INTO users (id, tenant_id, email, name, role, password_hash, updated_at)
     SELECT $1, id, $2, 'Passkey Writer', 'writer', $3, now() FROM tenants WHERE slug = 'daily-planet'`,
    [`usr_e2epkf${stamp}`, member.email, await hashPassword(member.password)],
  )
  const { context, page } = await browserWithPasskeyDevice(browser)

  await signIn(page, member)
  await page.goto('/settings/security')
  await page.getByRole('button', { name: 'Add a passkey' }).click()
  await page.getByLabel('Name for a new passkey').fill('Phone')
  await page.getByRole('button', { name: 'Add a passkey' }).click()
  await expect(page.getByRole('status').filter({ hasText: 'Passkey “Phone” added.' })).toBeVisible()
  // The first factor brings recovery codes, shown once: a lost phone is no admin's reset.
  await expect(page.getByTestId('recovery-codes').getByRole('listitem')).toHaveCount(10)
  await page.getByRole('button', { name: 'Sign out', exact: true }).click()
  await expect(page).toHaveURL(/\/signin/)

  // The password alone no longer signs in: the second step asks for the passkey (no app code),
  // and offers the recovery codes its registration issued.
  await page.getByLabel('E-mail').fill(member.email)
  await page.getByLabel('Password').fill(member.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  const factorStep = page.getByRole('region', { name: 'Second step of signing in' })
  await expect(factorStep.getByRole('heading', { name: 'Two-factor sign-in' })).toBeVisible()
  await expect(factorStep.getByRole('button', { name: 'Use a passkey' })).toBeVisible()
  await expect(page.getByLabel('Code from your authenticator app')).toHaveCount(0)
  await expect(page.getByRole('button', { name: 'Use a recovery code' })).toBeVisible()
  await expect(page.getByTestId('signed-in-user')).toHaveCount(0)

  await factorStep.getByRole('button', { name: 'Use a passkey' }).click()
  await expect(page.getByTestId('signed-in-user')).toContainText('Passkey Writer')
  await context.close()
})

test('a member past the newsroom’s grace who adds a passkey is let go at once: the reminder goes, and Articles opens', async ({ browser }) => {
  const member = await overdueMember('Strict Courier', 'Overdue writer')
  const { context, page } = await browserWithPasskeyDevice(browser)

  await signIn(page, member)
  await expect(page).toHaveURL(/\/settings\/security$/)
  await expect(page.getByTestId('second-factor-banner')).toContainText('set it up now')
  await clickWhileGated(page, 'Articles')

  await page.getByRole('button', { name: 'Add a passkey' }).click()
  await page.getByLabel('Name for a new passkey').fill('Phone')
  await page.getByRole('button', { name: 'Add a passkey' }).click()
  await expect(page.getByRole('status').filter({ hasText: 'Passkey “Phone” added.' })).toBeVisible()
  await expect(page.getByTestId('recovery-codes').getByRole('listitem')).toHaveCount(10)
  // The page says so without a reload, and the way out is open.
  await expect(page.getByTestId('second-factor-banner')).toHaveCount(0)
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Articles' }).click()
  await expect(page).toHaveURL(/\/articles$/)
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
  await context.close()
})
