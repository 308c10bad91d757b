import { expect, test } from '@playwright/test'
import { seeded, signIn } from './support/portal.ts'

test.use({ viewport: { width: 1280, height: 800 } })

test('an admin adds a person, changes their role, and deactivating them ends their session and their keys', async ({ page, browser, request }) => {
  await signIn(page, seeded.admin)
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Users' })).toBeVisible()

  // A clear refusal for a used address, beside the field.
  await page.getByLabel('Name').fill('Copy Cat')
  await page.getByLabel('E-mail').fill(seeded.writer.email)
  await page.getByRole('button', { name: 'Add person' }).click()
  await expect(page.getByText('This e-mail address is already in use.')).toBeVisible()
  await expect(page.getByLabel('E-mail')).toBeFocused()

  // No password typed: one is generated and shown once.
  const email = `lois.${Date.now()}@dailyplanet.example`
  await page.getByLabel('Name').fill('Lois Lane')
  await page.getByLabel('E-mail').fill(email)
  await page.getByLabel('Role', { exact: true }).selectOption('writer')
  await page.getByRole('button', { name: 'Add person' }).click()
  const password = (await page.getByTestId('generated-password').textContent())!
  expect(password).toMatch(/^[A-Za-z2-9]{20}$/)
  const row = page.getByRole('row', { name: /Lois Lane/ })
  await expect(row).toContainText(email)
  await expect(row.getByLabel('Role of Lois Lane', { exact: true })).toHaveValue('writer')

  await row.getByLabel('Role of Lois Lane', { exact: true }).selectOption('admin')
  await row.getByRole('button', { name: 'Change role of Lois Lane' }).click()
  await expect(page.getByRole('status').filter({ hasText: 'Lois Lane is now an admin.' })).toBeVisible()

  // Lois signs in elsewhere, as the admin she now is, and makes a key of her own.
  const lois = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  const loisPage = await lois.newPage()
  await signIn(loisPage, { email, password })
  await expect(loisPage.getByTestId('signed-in-user')).toContainText('Lois Lane (admin)')
  await loisPage.goto('/settings/api-keys/new')
  await loisPage.getByLabel('Name').fill('Lois’s feed')
  await loisPage.getByRole('checkbox', { name: /articles:read/ }).check()
  await loisPage.getByRole('button', { name: 'Create key' }).click()
  const token = (await loisPage.getByTestId('new-api-token').textContent())!
  const auth = { Authorization: `Bearer ${token}` }
  expect((await request.get('/v1/articles', { headers: auth })).status()).toBe(200)

  // Deactivation asks first, then ends her session and her key at once.
  await row.getByRole('button', { name: 'Deactivate Lois Lane' }).click()
  const dialog = page.getByRole('dialog', { name: 'Deactivate Lois Lane?' })
  await expect(dialog).toContainText('Every API key they own stops working')
  await dialog.getByRole('button', { name: 'Deactivate' }).click()
  await expect(page.getByRole('status').filter({ hasText: 'Lois Lane was deactivated' })).toBeVisible()
  await expect(row).toContainText('Deactivated')

  expect((await request.get('/v1/articles', { headers: auth })).status()).toBe(401)
  await loisPage.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Home' }).click()
  await expect(loisPage).toHaveURL(/\/signin/)
  await loisPage.goto('/settings/users')
  await expect(loisPage).toHaveURL(/\/signin/)
  expect((await loisPage.request.get('/api/trpc/users.list')).status()).toBe(401)
  // And she cannot sign in again.
  await loisPage.getByLabel('E-mail').fill(email)
  await loisPage.getByLabel('Password').fill(password)
  await loisPage.getByRole('button', { name: 'Sign in' }).click()
  await expect(loisPage.getByRole('alert').filter({ hasText: 'do not match an active account' })).toBeVisible()
  await lois.close()

  // The last active admin cannot step down, and nobody can deactivate themselves.
  const own = page.getByRole('row', { name: /Daily Planet Admin/ })
  await expect(own).toContainText('(you)')
  await expect(own.getByRole('button', { name: /^Deactivate/ })).toHaveCount(0)
  await own.getByLabel('Role of Daily Planet Admin', { exact: true }).selectOption('editor')
  await own.getByRole('button', { name: 'Change role of Daily Planet Admin' }).click()
  await expect(page.getByRole('alert').filter({ hasText: "Daily Planet Admin is the newsroom's last active admin" })).toBeVisible()

  // Her key is not revoked, but the keys list says it no longer works, and why.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API Keys' }).click()
  await expect(page.getByRole('row', { name: /Lois’s feed/ })).toContainText('Not working')
  await expect(page.getByRole('row', { name: /Lois’s feed/ })).toContainText('Its owner, Lois Lane, is deactivated.')

  // Everything above is in the audit log, with who did it and to whom.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit log' }).click()
  const log = page.getByRole('table')
  // The deactivation, and after it the refused sign-in of the deactivated member (audited too).
  const deactivation = log.getByRole('row').filter({ hasText: 'Deactivated user' }).first()
  await expect(deactivation).toContainText(email)
  await expect(deactivation).toContainText(seeded.admin.name)
  await expect(log.getByRole('row', { name: /Created API key/ }).filter({ hasText: 'Lois’s feed' })).toContainText('Lois Lane')
  await expect(log.getByRole('row', { name: /Changed role/ }).filter({ hasText: email })).toContainText('writer → admin')
  await expect(log.getByRole('row', { name: /Added user/ }).filter({ hasText: email })).toBeVisible()
})

test('departments: add, rename, and remove only while no article uses it', async ({ page }) => {
  await signIn(page, seeded.admin)
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Departments' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Departments' })).toBeVisible()

  await page.getByLabel('Department name').fill('politics')
  await page.getByRole('button', { name: 'Add department' }).click()
  await expect(page.getByText('A department named “Politics” exists already.')).toBeVisible()
  await expect(page.getByLabel('Department name')).toBeFocused()

  await page.getByLabel('Department name').fill('Weather')
  await page.getByRole('button', { name: 'Add department' }).click()
  await expect(page.getByRole('status').filter({ hasText: 'Added the department “Weather”.' })).toBeVisible()
  await expect(page.getByRole('row', { name: /Weather/ })).toContainText('0 articles')

  await page.getByRole('button', { name: 'Rename Weather' }).click()
  await expect(page.getByLabel('New name for Weather')).toBeFocused()
  await page.getByLabel('New name for Weather').fill('Weather & Climate')
  await page.keyboard.press('Enter')
  await expect(page.getByRole('status').filter({ hasText: 'Renamed “Weather” to “Weather & Climate”' })).toBeVisible()

  // A department in use is refused, with the reason and what to do.
  const sport = page.getByRole('row', { name: /^Sport/ })
  await sport.getByRole('button', { name: 'Remove Sport' }).click()
  const refuse = page.getByRole('dialog', { name: 'Remove “Sport”?' })
  await refuse.getByRole('button', { name: 'Remove department' }).click()
  await expect(refuse.getByRole('alert')).toContainText('“Sport” cannot be removed while')
  await expect(refuse.getByRole('alert')).toContainText('Move those articles to another department first.')
  await refuse.getByRole('button', { name: 'Cancel' }).click()
  await expect(sport).toBeVisible()

  await page.getByRole('button', { name: 'Remove Weather & Climate' }).click()
  await page.getByRole('dialog', { name: 'Remove “Weather & Climate”?' }).getByRole('button', { name: 'Remove department' }).click()
  await expect(page.getByRole('status').filter({ hasText: 'Removed the department “Weather & Climate”.' })).toBeVisible()
  await expect(page.getByRole('row', { name: /Weather/ })).toHaveCount(0)
})
