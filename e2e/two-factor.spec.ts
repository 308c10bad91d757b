import { expect, test, type Page } from '@playwright/test'
import { totpCode, totpStep } from '../lib/auth/totp.ts'
import { sql } from './support/portal.ts'
import { clickWhileGated, overdueMember } from './support/two-factor-gate.ts'

test.use({ viewport: { width: 1280, height: 800 } })

/** A member of the Daily Planet of their own, so their factor touches no other journey. */
async function freshMember(): Promise<{ email: string; password: string }> {
  const { hashPassword } = await import('../lib/auth/passwords.ts')
  const email = `two-factor-${Date.now()}@dailyplanet.example`
  const password = 'a long e2e passphrase'
  await sql(
    `INSERT INTO users (id, tenant_id, email, name, role, password_hash, updated_at)
     SELECT $1, id, $2, 'Two-factor writer', 'writer'::"Role", $3, now() FROM tenants WHERE slug = 'daily-planet'`,
    [`usr_e2etf${Date.now()}`, email, await hashPassword(password)],
  )
  return { email, password }
}

async function passwordStep(page: Page, who: { email: string; password: string }) {
  await page.goto('/signin')
  await page.getByLabel('E-mail').fill(who.email)
  await page.getByLabel('Password').fill(who.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
}

/** The code the app would show now; the one used a moment ago is spent (replay), so the last use is moved back a minute. */
async function nextCode(email: string, secret: string): Promise<string> {
  await sql(`UPDATE totp_factors SET last_used_step = $1 WHERE user_id = (SELECT id FROM users WHERE email = $2)`, [totpStep() - 2, email])
  return totpCode(secret, totpStep())
}

test('a member sets up an authenticator app, then signs in with password and code, and with a recovery code', async ({ page }) => {
  const member = await freshMember()
  await passwordStep(page, member)
  await expect(page.getByTestId('signed-in-user')).toBeVisible()

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Security' }).click()
  await page.getByRole('button', { name: 'Set up an authenticator app' }).click()
  await expect(page.getByRole('img', { name: 'QR code of the authenticator key' })).toBeVisible()
  const secret = (await page.getByTestId('totp-secret').innerText()).replace(/\s/g, '')
  expect(secret).toMatch(/^[A-Z2-7]{32}$/)
  await page.getByLabel('Code the app shows now').fill(totpCode(secret, totpStep()))
  await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click()
  const codes = page.getByTestId('recovery-codes').getByRole('listitem')
  await expect(codes).toHaveCount(10)
  const recoveryCodes = await codes.allInnerTexts()
  await expect(page.getByText('of 10 recovery codes left')).toContainText('10 of 10')
  await page.screenshot({ path: 'docs/screenshots/two-factor-recovery-codes.png', fullPage: true })

  await page.getByRole('button', { name: 'Sign out', exact: true }).click()
  await expect(page).toHaveURL(/\/signin/)

  // Password, then the code: the step appears with the code field focused.
  await passwordStep(page, member)
  const codeField = page.getByLabel('Code from your authenticator app')
  await expect(codeField).toBeFocused()
  await expect(codeField).toHaveAttribute('autocomplete', 'one-time-code')
  await expect(page.getByTestId('signed-in-user')).toHaveCount(0)
  await codeField.fill(totpCode(secret, totpStep() + 5))
  await page.getByRole('button', { name: 'Verify' }).click()
  await expect(page.getByRole('form', { name: 'Second step of signing in' }).getByRole('alert')).toContainText('4 tries left')
  await codeField.fill(await nextCode(member.email, secret))
  await page.getByRole('button', { name: 'Verify' }).click()
  await expect(page.getByTestId('signed-in-user')).toBeVisible()

  await page.getByRole('button', { name: 'Sign out', exact: true }).click()
  await expect(page).toHaveURL(/\/signin/)

  // Without the phone: a recovery code, once.
  await passwordStep(page, member)
  await page.getByRole('button', { name: 'Use a recovery code' }).click()
  await page.getByLabel('Recovery code').fill(recoveryCodes[0]!)
  await page.getByRole('button', { name: 'Verify' }).click()
  await expect(page.getByTestId('signed-in-user')).toBeVisible()
  await page.goto('/settings/security')
  await expect(page.getByText('of 10 recovery codes left')).toContainText('9 of 10')
})

test('past the newsroom’s grace, a member without a factor is sent to Security until they set one up', async ({ page }) => {
  const { email, password } = await overdueMember('Strict Gazette', 'Covered writer')
  await passwordStep(page, { email, password })
  await expect(page).toHaveURL(/\/settings\/security$/)
  await expect(page.getByTestId('second-factor-banner')).toContainText('set it up now')
  await clickWhileGated(page, 'Articles')

  await page.getByRole('button', { name: 'Set up an authenticator app' }).click()
  const secret = (await page.getByTestId('totp-secret').innerText()).replace(/\s/g, '')
  await page.getByLabel('Code the app shows now').fill(totpCode(secret, totpStep()))
  await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click()
  await expect(page.getByTestId('recovery-codes').getByRole('listitem')).toHaveCount(10)
  await expect(page.getByTestId('second-factor-banner')).toHaveCount(0)
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Articles' }).click()
  await expect(page).toHaveURL(/\/articles$/)
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
})
