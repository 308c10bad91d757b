import { expect, type Page } from '@playwright/test'
import { sql } from './portal.ts'

/**
 * A member past the two-factor grace clicks a link in the portal's main navigation: the gate
 * answers the router's request with no flight data (proxy.ts), so the page is loaded in full and
 * that load lands on Security. Waits for that load: the URL is Security's before the click too,
 * and a step taken while the load is still on its way meets a page about to be replaced.
 */
export async function clickWhileGated(page: Page, linkName: string): Promise<void> {
  const loaded = page.waitForEvent('load')
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: linkName }).click()
  await loaded
  await expect(page).toHaveURL(/\/settings\/security$/)
}

/**
 * A writer of a newsroom of its own that requires a second factor of everyone, its grace long
 * over (a newsroom of its own: requiring a factor of the Daily Planet would stop every other
 * journey). `newsroom` and `name` are what the pages show; the ids come back for rows a journey adds.
 */
export async function overdueMember(newsroom: string, name: string): Promise<{ email: string; password: string; tenantId: string; userId: string }> {
  const { hashPassword } = await import('../../lib/auth/passwords.ts')
  const stamp = `${Date.now()}${Math.floor(Math.random() * 1000)}`
  const [tenantId, userId] = [`ten_e2eod${stamp}`, `usr_e2eod${stamp}`]
  const email = `overdue-${stamp}@strict.example`
  const password = 'a long e2e passphrase'
  await sql(
    `INSERT INTO tenants (id, name, slug, public_site_url, updated_at, two_factor_policy, two_factor_grace_days, two_factor_policy_changed_at)
     VALUES ($1, $2, $3, 'https://strict.example', now(), 'all', 3, now() - interval '4 days')`,
    [tenantId, newsroom, `strict-${stamp}`],
  )
  await sql(
    `INSERT INTO users (id, tenant_id, email, name, role, password_hash, created_at, updated_at)
     VALUES ($1, $2, $3, $4, 'writer'::"Role", $5, now() - interval '30 days', now())`,
    [userId, tenantId, email, name, await hashPassword(password)],
  )
  return { email, password, tenantId, userId }
}
