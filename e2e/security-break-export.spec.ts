import { expect, test } from '@playwright/test'
import { signIn, sql } from './support/portal.ts'

/**
 * Issue 46: "Every act that can redirect data, widen access or remove a person asks for recent
 * authentication, decided in one place". The newsroom's archive (every draft and revision,
 * every member's e-mail and role, the audit log, every webhook's receiver URL) is one GET of a
 * route handler, outside the declared list the mutation-walking test checks: whoever sits at an
 * admin's unattended session downloads all of it without "Confirm it's you".
 */
test.use({ viewport: { width: 1280, height: 800 } })

test('with the sudo window expired, downloading the whole newsroom asks for recent authentication first', async ({ browser }) => {
  const { hashPassword } = await import('../lib/auth/passwords.ts')
  const stamp = `${Date.now()}${Math.floor(Math.random() * 1000)}`
  const admin = { email: `export-admin-${stamp}@dailyplanet.example`, password: 'a long e2e passphrase' }
  await sql(
    `INSERT INTO users (id, tenant_id, email, name, role, password_hash, updated_at)
     SELECT $1, id, $2, 'Export admin', 'admin'::"Role", $3, now() FROM tenants WHERE slug = 'daily-planet'`,
    [`usr_e2eex${stamp}`, admin.email, await hashPassword(admin.password)],
  )
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' })
  try {
    const page = await context.newPage()
    await signIn(page, admin)
    // An hour at lunch, the laptop open (the session's last proof moved back rather than waited for).
    await sql(`UPDATE portal_sessions SET reauthenticated_at = now() - interval '60 minutes' WHERE user_id = (SELECT id FROM users WHERE email = $1)`, [admin.email])
    const answer = await page.request.get('/api/newsroom-export')
    const body = await answer.text()
    expect(body, 'the archive was sent without recent authentication').not.toContain('"type":"manifest"')
    expect(answer.status()).toBe(403)
    // Settings → Export asks first, and downloads once the admin has confirmed.
    await page.goto('/settings/export')
    await page.getByRole('button', { name: /Download the newsroom’s archive/ }).click()
    const dialog = page.getByRole('dialog', { name: 'Confirm it’s you' })
    await expect(dialog).toBeVisible()
    await dialog.getByLabel('Password').fill(admin.password)
    const downloading = page.waitForEvent('download')
    await dialog.getByRole('button', { name: 'Confirm' }).click()
    expect((await downloading).suggestedFilename()).toMatch(/^daily-planet-\d{4}-\d{2}-\d{2}\.ndjson$/)
  } finally {
    await context.close()
    await sql('UPDATE users SET active = false, deactivated_at = now() WHERE email = $1', [admin.email])
  }
})
