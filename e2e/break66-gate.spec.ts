import { expect, test, type Page } from '@playwright/test'
import { totpCode, totpStep } from '../lib/auth/totp.ts'
import { sql } from './support/portal.ts'

test.use({ viewport: { width: 1280, height: 800 } })

/** A writer of a newsroom of its own that requires a factor of everyone, its grace long over, with a draft of their own. */
async function overdueMember(): Promise<{ email: string; password: string; draftId: string }> {
  const { hashPassword } = await import('../lib/auth/passwords.ts')
  const stamp = `${Date.now()}${Math.floor(Math.random() * 1000)}`
  const email = `gate66-${stamp}@strict.example`
  const password = 'a long e2e passphrase'
  await sql(
    `INSERT INTO tenants (id, name, slug, public_site_url, updated_at, two_factor_policy, two_factor_grace_days, two_factor_policy_changed_at)
     VALUES ($1, 'Strict Herald', $2, 'https://strict.example', now(), 'all', 3, now() - interval '4 days')`,
    [`ten_b66${stamp}`, `strict-b66-${stamp}`],
  )
  await sql(
    `INSERT INTO users (id, tenant_id, email, name, role, password_hash, created_at, updated_at)
     VALUES ($1, $2, $3, 'Gated writer', 'writer'::"Role", $4, now() - interval '30 days', now())`,
    [`usr_b66${stamp}`, `ten_b66${stamp}`, email, await hashPassword(password)],
  )
  const draftId = `art_b66${stamp}`
  await sql(`INSERT INTO articles (id, tenant_id, headline, author_id, updated_at) VALUES ($1, $2, 'Embargoed council leak', $3, now())`, [draftId, `ten_b66${stamp}`, `usr_b66${stamp}`])
  return { email, password, draftId }
}

async function signInToSecurity(page: Page, who: { email: string; password: string }) {
  await page.goto('/signin')
  await page.getByLabel('E-mail').fill(who.email)
  await page.getByLabel('Password').fill(who.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await expect(page).toHaveURL(/\/settings\/security$/)
  await expect(page.getByTestId('second-factor-banner')).toContainText('set it up now')
}

async function setUpApp(page: Page): Promise<string> {
  await page.getByRole('button', { name: 'Set up an authenticator app' }).click()
  const secret = (await page.getByTestId('totp-secret').innerText()).replace(/\s/g, '')
  await page.getByLabel('Code the app shows now').fill(totpCode(secret, totpStep()))
  await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click()
  await expect(page.getByTestId('recovery-codes').getByRole('listitem')).toHaveCount(10)
  return secret
}

const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' })

test('an overdue member cannot read a page past the gate by sending the prefetch header on an ordinary page load', async ({ page }) => {
  const member = await overdueMember()
  await signInToSecurity(page, member)
  // What a browser extension or a script adds to every request: the proxy's matcher skips such requests.
  await page.setExtraHTTPHeaders({ Purpose: 'prefetch' })
  await page.goto(`/articles/${member.draftId}/preview`)
  await expect(page.getByText('Embargoed council leak').first()).toHaveCount(0)
  await expect(page).toHaveURL(/\/settings\/security$/)
})

test('two tabs: the only factor removed in one while overdue, Back in the other tab does not show the page it left', async ({ context }) => {
  const member = await overdueMember()
  const a = await context.newPage()
  await signInToSecurity(a, member)
  await setUpApp(a)
  const b = await context.newPage()
  await b.goto('/articles')
  await expect(b.getByRole('heading', { level: 1, name: 'Articles' })).toBeVisible()
  await nav(b).getByRole('link', { name: 'Home' }).click()
  await expect(b.getByRole('heading', { name: 'Your desk' })).toBeVisible()

  await a.bringToFront()
  await a.getByRole('button', { name: 'Remove authenticator app' }).click()
  await a.getByRole('dialog').getByRole('button', { name: 'Remove' }).click()
  await expect(a.getByText('Authenticator app removed.')).toBeVisible()
  await expect(a.getByTestId('second-factor-banner')).toContainText('set it up now')

  await b.bringToFront()
  await b.waitForTimeout(1000)
  await b.goBack()
  await b.waitForTimeout(1500)
  // Behind the gate again: Back leads to Security (as it does in the tab where the factor was removed), not to Articles.
  await expect(b.getByRole('heading', { level: 1, name: 'Articles' })).toHaveCount(0)
  await expect(b).toHaveURL(/\/settings\/security$/)
})
