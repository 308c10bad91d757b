import { expect, test, type Browser } from '@playwright/test'
import { seeded, signIn, sql } from './support/portal.ts'

test.use({ viewport: { width: 1280, height: 800 } })

const firefoxOnLinux = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0'

/** A member of the Daily Planet of their own, so ending their sessions touches no other journey's. */
async function freshMember(role: 'writer' | 'admin'): Promise<{ email: string; password: string }> {
  const { hashPassword } = await import('../lib/auth/passwords.ts')
  const email = `security-${role}-${Date.now()}@dailyplanet.example`
  const password = 'a long e2e passphrase'
  await sql(
    `INSERT INTO users (id, tenant_id, email, name, role, password_hash, updated_at)
     SELECT $1, id, $2, $3, $4::"Role", $5, now() FROM tenants WHERE slug = 'daily-planet'`,
    [`usr_e2e${Date.now()}`, email, `Security ${role}`, role, await hashPassword(password)],
  )
  return { email, password }
}

async function signedInBrowser(browser: Browser, who: { email: string; password: string }, userAgent?: string) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US', ...(userAgent && { userAgent }) })
  const page = await context.newPage()
  await signIn(page, who)
  return { context, page }
}

test('a member sees where they are signed in and signs the other browser out; it is signed out on its next navigation', async ({ browser }) => {
  const member = await freshMember('writer')
  const laptop = await signedInBrowser(browser, member)
  const other = await signedInBrowser(browser, member, firefoxOnLinux)

  await laptop.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Security' }).click()
  await expect(laptop.page.getByRole('heading', { level: 1, name: 'Security' })).toBeVisible()
  const sessions = laptop.page.getByRole('table', { name: 'Your active sessions' })
  await expect(sessions.getByRole('row')).toHaveCount(3)
  await expect(laptop.page.getByTestId('session-current')).toContainText('This browser')
  await expect(laptop.page.getByTestId('session-other')).toContainText('Firefox on Linux')
  await laptop.page.screenshot({ path: 'docs/screenshots/security-sessions.png', fullPage: true })

  await laptop.page.getByRole('button', { name: /^Sign out Firefox on Linux/ }).click()
  await expect(laptop.page.getByRole('status').filter({ hasText: 'Signed out Firefox on Linux' })).toBeVisible()
  await expect(sessions.getByRole('row')).toHaveCount(2)

  await other.page.goto('/articles')
  await expect(other.page).toHaveURL(/\/signin/)
  await laptop.page.goto('/articles')
  await expect(laptop.page.getByTestId('signed-in-user')).toBeVisible()
  await Promise.all([laptop.context.close(), other.context.close()])
})

test('changing the password signs out the member\'s other browsers', async ({ browser }) => {
  const member = await freshMember('writer')
  const here = await signedInBrowser(browser, member)
  const elsewhere = await signedInBrowser(browser, member, firefoxOnLinux)
  await here.page.goto('/settings/security')
  await here.page.getByLabel('Current password').fill(member.password)
  await here.page.getByLabel('New password', { exact: true }).fill('another long passphrase')
  await here.page.getByLabel('New password again').fill('another long passphrase')
  await here.page.getByRole('button', { name: 'Change password' }).click()
  await expect(here.page.getByRole('status').filter({ hasText: 'Password changed. 1 other session was signed out.' })).toBeVisible()
  await elsewhere.page.goto('/')
  await expect(elsewhere.page).toHaveURL(/\/signin/)
  await Promise.all([here.context.close(), elsewhere.context.close()])
})

test('creating an admin key more than 10 minutes after signing in asks for the password, then goes ahead', async ({ browser }) => {
  const admin = await freshMember('admin')
  const { context, page } = await signedInBrowser(browser, admin)
  // Eleven minutes pass (the session's last proof moved back rather than waited for).
  await sql('UPDATE portal_sessions SET reauthenticated_at = now() - interval \'11 minutes\' WHERE user_id = (SELECT id FROM users WHERE email = $1)', [admin.email])

  await page.goto('/settings/api-keys/new')
  await page.getByLabel('Name').fill('Sudo admin key')
  await page.getByRole('group', { name: 'Scopes' }).getByRole('checkbox', { name: /^admin/ }).check()
  await page.getByRole('button', { name: 'Create key' }).click()
  const dialog = page.getByRole('dialog', { name: 'Confirm it’s you' })
  await expect(dialog).toBeVisible()
  await dialog.getByLabel('Password').fill('not my password')
  await dialog.getByRole('button', { name: 'Confirm' }).click()
  await expect(dialog.getByRole('alert')).toHaveText('That is not your password.')
  await dialog.getByLabel('Password').fill(admin.password)
  await page.screenshot({ path: 'docs/screenshots/reauthenticate-dialog.png' })
  await dialog.getByRole('button', { name: 'Confirm' }).click()
  await expect(dialog).toBeHidden()
  await expect(page.getByTestId('new-api-token')).toHaveText(/^nrs_/)
  await expect(page.getByRole('heading', { name: 'Key “Sudo admin key” created' })).toBeVisible()
  await context.close()
  // Other journeys rely on the seeded admin being the newsroom's only admin.
  await sql('UPDATE users SET active = false, deactivated_at = now() WHERE email = $1', [admin.email])
})

test('an admin creates a key that expires and admits one range, sees the refusal in its log, and rolls it', async ({ browser, request }) => {
  const { context, page } = await signedInBrowser(browser, seeded.admin)
  const name = `Bounded importer ${Date.now()}`
  await page.goto('/settings/api-keys/new')
  await page.getByLabel('Name').fill(name)
  await page.getByRole('group', { name: 'Scopes' }).getByRole('checkbox', { name: /articles:read/ }).check()
  await page.getByRole('group', { name: 'Expires' }).getByRole('radio', { name: 'In 30 days' }).check()
  await page.getByLabel('Allowed addresses (optional)').fill('203.0.113.0/24\n10.0.0.1/8')
  await page.getByRole('button', { name: 'Create key' }).click()
  await expect(page.getByText('“10.0.0.1/8” has bits set after its /8 prefix; did you mean 10.0.0.0/8?')).toBeVisible()
  await page.getByLabel('Allowed addresses (optional)').fill('203.0.113.0/24\n2001:db8::/32')
  await page.screenshot({ path: 'docs/screenshots/api-key-create-bounds.png', fullPage: true })
  await page.getByRole('button', { name: 'Create key' }).click()
  const token = (await page.getByTestId('new-api-token').textContent())!
  await expect(page.getByText('only from 203.0.113.0/24, 2001:db8::/32')).toBeVisible()

  // This test's requests come from 127.0.0.1, which the key does not admit.
  const refused = await request.get('/v1/articles', { headers: { Authorization: `Bearer ${token}` } })
  expect(refused.status()).toBe(403)
  expect((await refused.json()).detail).toMatch(/^Requests from 127\.0\.0\.1 may not use this API key/)

  await page.getByRole('link', { name: 'Done, back to API keys' }).click()
  const row = page.getByRole('row').filter({ hasText: name })
  await expect(row).toContainText('203.0.113.0/24')
  await expect(row).toContainText('2001:db8::/32')
  await row.getByRole('link', { name }).click()
  await expect(page.getByTestId('key-bounds')).toContainText('203.0.113.0/24, 2001:db8::/32')
  const logged = page.getByRole('table', { name: 'Recent requests of this key' }).getByRole('row').filter({ hasText: 'ip_not_allowed' })
  await expect(logged).toContainText('address not on the allowlist')
  await expect(logged).toContainText('127.0.0.1')

  const roll = page.getByRole('group', { name: 'Roll the key' })
  await roll.getByRole('radio', { name: '1 hour' }).check()
  await roll.getByRole('button', { name: 'Roll key' }).click()
  // Rolling cannot be undone: it asks first, saying how long the current secret keeps working.
  const confirmRoll = page.getByRole('dialog', { name: /Roll the key/ })
  await expect(confirmRoll).toContainText('keeps working for 1 hour beside the new one')
  await expect(page.getByTestId('rolled-api-token')).toHaveCount(0)
  await confirmRoll.getByRole('button', { name: 'Roll key' }).click()
  const rolled = page.getByTestId('rolled-api-token')
  await expect(rolled).toHaveText(/^nrs_/)
  expect(await rolled.textContent()).not.toBe(token)
  await expect(page.getByText('The old secret keeps working until')).toBeVisible()
  await page.screenshot({ path: 'docs/screenshots/api-key-rolled.png', fullPage: true })

  await page.getByRole('link', { name: '← API Keys' }).click()
  await expect(page.getByRole('row').filter({ hasText: name })).toContainText('Rolled; the old secret works until')
  await page.screenshot({ path: 'docs/screenshots/api-key-list-bounds.png', fullPage: true })
  await context.close()
})
