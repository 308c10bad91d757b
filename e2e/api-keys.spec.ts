import { expect, test } from '@playwright/test'
import { seeded, signIn, sql } from './support/portal.ts'
import { createE2eApiToken } from './support/e2e-database.ts'

test.use({ viewport: { width: 1280, height: 800 } })

test('an admin creates a key, copies its token once, uses it with exactly its scopes, and revokes it', async ({ page, context, request }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'])
  await signIn(page, seeded.admin)

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API Keys' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'API Keys' })).toBeVisible()
  await expect(page.getByRole('heading', { name: 'Rotating a key' })).toBeVisible()
  await expect(page.getByText('Revoke the old key here.')).toBeVisible()

  await page.getByRole('link', { name: 'Create new key' }).click()
  await expect(page).toHaveURL(/\/settings\/api-keys\/new$/)
  const scopes = page.getByRole('group', { name: 'Scopes' })
  // An admin may grant every scope of the spec, and events:read; each comes with its description.
  await expect(scopes.getByRole('checkbox')).toHaveCount(8)
  await expect(scopes.locator('label', { hasText: 'events:read' })).toContainText('as webhooks carry them')
  await expect(scopes.locator('label', { hasText: 'events:read' })).not.toContainText('No endpoints yet')
  await expect(scopes.getByText('Create and delete webhook subscriptions.')).toBeVisible()
  await expect(scopes.getByText('Read articles.', { exact: true })).toBeVisible()
  // Scopes without endpoints say so where they are offered (analytics); media's are served now.
  await expect(scopes.locator('label', { hasText: 'analytics:read' })).toContainText('No endpoints yet')
  await expect(scopes.locator('label', { hasText: 'media:write' })).toContainText('Upload, change and delete media.')
  await expect(scopes.locator('label', { hasText: 'media:write' })).not.toContainText('No endpoints yet')
  await expect(scopes.locator('label', { hasText: 'articles:write' })).not.toContainText('No endpoints yet')

  // Refusals are explained beside the field, and focus goes to the first one.
  await page.getByRole('button', { name: 'Create key' }).click()
  await expect(page.getByText('Give the key a name')).toBeVisible()
  await expect(page.getByText('Choose at least one scope.')).toBeVisible()
  await expect(page.getByLabel('Name')).toBeFocused()

  await page.getByLabel('Name').fill('E2E importer')
  await scopes.getByRole('checkbox', { name: /articles:read/ }).check()
  await scopes.getByRole('checkbox', { name: /webhooks:manage/ }).check()
  await page.getByRole('button', { name: 'Create key' }).click()

  const shown = page.getByTestId('new-api-token')
  await expect(shown).toHaveText(/^nrs_[A-Za-z0-9_-]{43}$/)
  await expect(page.getByText('it is shown only this once')).toBeVisible()
  await expect(page.getByRole('heading', { name: 'Key “E2E importer” created' })).toBeFocused()
  await page.screenshot({ path: 'docs/screenshots/api-key-created.png' })

  await page.getByRole('button', { name: 'Copy token' }).click()
  await expect(page.getByText('Copied to the clipboard.')).toBeVisible()
  const token = await page.evaluate(() => navigator.clipboard.readText())
  expect(token).toBe(await shown.textContent())

  // The token works at once, with exactly the two scopes it was given.
  const auth = { Authorization: `Bearer ${token}` }
  expect((await request.get('/v1/articles', { headers: auth })).status()).toBe(200)
  expect((await request.get('/v1/webhooks', { headers: auth })).status()).toBe(200)
  const write = await request.post('/v1/articles', { headers: auth, data: { headline: 'Not allowed' } })
  expect(write.status()).toBe(403)
  expect(await write.json()).toMatchObject({ code: 'insufficient_scope' })

  // Never shown again: not after a reload, not in the list, not kept in the browser.
  await page.reload()
  await expect(page.getByRole('heading', { level: 1, name: 'Create new key' })).toBeVisible()
  expect(await page.content()).not.toContain(token)
  await page.goto('/settings/api-keys')
  const row = page.getByRole('row', { name: /E2E importer/ })
  await expect(row).toContainText(`${token.slice(0, 12)}…`)
  await expect(row).toContainText('articles:read')
  await expect(row).toContainText('webhooks:manage')
  await expect(row).toContainText(seeded.admin.name)
  await expect(row).toContainText('Active')
  expect(await page.content()).not.toContain(token)
  const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }))
  expect(stored).not.toContain(token)

  // Revoking asks first; Escape or Cancel leaves the key alone.
  await row.getByRole('button', { name: 'Revoke E2E importer' }).click()
  const dialog = page.getByRole('dialog', { name: 'Revoke “E2E importer”?' })
  await expect(dialog).toBeVisible()
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused()
  await page.keyboard.press('Escape')
  await expect(dialog).toBeHidden()
  expect((await request.get('/v1/articles', { headers: auth })).status()).toBe(200)

  await row.getByRole('button', { name: 'Revoke E2E importer' }).click()
  await dialog.getByRole('button', { name: 'Revoke key' }).click()
  await expect(page.getByRole('status').filter({ hasText: 'Revoked “E2E importer”' })).toBeVisible()
  await expect(page.getByRole('row', { name: /E2E importer/ })).toHaveCount(0)
  // Immediately: the revocation cleared this server's token cache.
  const refused = await request.get('/v1/articles', { headers: auth })
  expect(refused.status()).toBe(401)
  expect(await refused.json()).toMatchObject({ code: 'unauthenticated', detail: expect.stringMatching(/^This API key was revoked at /) })

  await page.getByText(/^Revoked keys \(\d+\)$/).click()
  await expect(page.getByRole('row', { name: /E2E importer/ })).toContainText('Revoked')
  // The revoked key's log keeps the request refused after its revocation, with where it came from.
  await page.getByRole('row', { name: /E2E importer/ }).getByRole('link').first().click()
  const refusedId = (await refused.json()).request_id as string
  await page.getByLabel('Request id').fill(refusedId)
  const refusedRow = page.getByTestId(`request-${refusedId}`)
  await expect(refusedRow).toBeVisible({ timeout: 15_000 })
  await expect(refusedRow).toContainText('401')
  await expect(refusedRow).toContainText('unauthenticated')
  await expect(refusedRow.locator('td[data-label="From"]')).not.toHaveText('—')
})

test('keys older than 90 days are flagged for rotation', async ({ page }) => {
  await signIn(page, seeded.admin)
  await page.goto('/settings/api-keys/new')
  await page.getByLabel('Name').fill('Legacy feed')
  await page.getByRole('checkbox', { name: /articles:read/ }).check()
  await page.getByRole('button', { name: 'Create key' }).click()
  await expect(page.getByTestId('new-api-token')).toBeVisible()
  await sql(`UPDATE api_tokens SET created_at = now() - interval '91 days' WHERE name = 'Legacy feed'`)

  await page.getByRole('link', { name: 'Done, back to API keys' }).click()
  await expect(page.getByRole('row', { name: /Legacy feed/ })).toContainText('Rotation recommended')
})

test("an admin finds a key's refused request in its request log by the request id", async ({ page, request }) => {
  await signIn(page, seeded.admin)
  await page.goto('/settings/api-keys/new')
  await page.getByLabel('Name').fill('E2E request log')
  await page.getByRole('group', { name: 'Scopes' }).getByRole('checkbox', { name: /articles:read/ }).check()
  await page.getByRole('button', { name: 'Create key' }).click()
  const token = (await page.getByTestId('new-api-token').textContent())!

  const refused = await request.get('/v1/articles?status=bogus&limit=5', { headers: { Authorization: `Bearer ${token}` } })
  expect(refused.status()).toBe(422)
  const requestId = (await refused.json()).request_id as string
  expect((await request.get('/v1/articles', { headers: { Authorization: `Bearer ${token}` } })).status()).toBe(200)

  await page.goto('/settings/api-keys')
  await page.getByRole('link', { name: 'E2E request log' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'E2E request log' })).toBeVisible()
  await page.getByLabel('Request id').fill(requestId)
  const row = page.getByTestId(`request-${requestId}`)
  await expect(row).toBeVisible({ timeout: 15_000 })
  await expect(row).toContainText('GET /v1/articles?limit&status')
  await expect(row).toContainText('422')
  await expect(page.getByRole('table', { name: 'Recent requests of this key' }).getByRole('row')).toHaveCount(2)
  expect(await page.content()).not.toContain('bogus')

  await page.getByLabel('Request id').fill('')
  await page.getByLabel('Status').selectOption('2xx')
  await expect(page.getByRole('table', { name: 'Recent requests of this key' }).getByRole('row')).toHaveCount(2)
  await expect(page.getByRole('table', { name: 'Recent requests of this key' })).toContainText('200')

  await page.getByLabel('Status').selectOption('4xx')
  await page.getByRole('link', { name: 'validation_failed' }).click()
  await expect(page).toHaveURL(/\/docs\/api#error-validation_failed$/)
})

test('past a screen of keys the list searches and pages', async ({ page }) => {
  // Metro Herald's admin, so the other journeys' Daily Planet keys stay as they are.
  const prefixes: string[] = []
  for (let i = 0; i < 24; i++) prefixes.push((await createE2eApiToken('metro-herald', 'admin@metroherald.example', ['articles:read'])).slice(0, 12))
  await page.goto('/signin')
  await page.getByLabel('E-mail').fill('admin@metroherald.example')
  await page.getByLabel('Password').fill('newsroom-admin-dev')
  await page.getByRole('button', { name: 'Sign in' }).click()
  await expect(page.getByTestId('signed-in-user')).toContainText('(admin)')
  await page.goto('/settings/api-keys')

  const table = page.getByRole('table', { name: 'Active API keys' })
  await expect(table.locator('tbody tr')).toHaveCount(20)
  await expect(page.getByRole('status').filter({ hasText: /^1–20 of \d+$/ })).toBeVisible()
  await page.getByRole('navigation', { name: 'Pages' }).getByRole('button', { name: 'Next' }).click()
  await expect(table.locator('tbody tr').first()).toBeVisible()
  expect(await table.locator('tbody tr').count()).toBeLessThanOrEqual(20)

  await page.getByRole('searchbox', { name: 'Search' }).fill(prefixes[7]!)
  await expect(table.locator('tbody tr')).toHaveCount(1)
  await expect(table).toContainText(prefixes[7]!)
  await page.getByRole('searchbox', { name: 'Search' }).fill('no key has this')
  await expect(page.getByRole('status').filter({ hasText: /^None of \d+ match\.$/ })).toBeVisible()
})

test("a key's request log pages to its older requests and back", async ({ page, request }) => {
  const token = await createE2eApiToken('daily-planet', seeded.admin.email, ['articles:read'], 'E2E busy key')
  const auth = { Authorization: `Bearer ${token}` }
  await signIn(page, seeded.admin)

  // The oldest request is told apart by its query key; 29 more fill a page of 25 and part of the next.
  expect((await request.get('/v1/articles?tag=oldest', { headers: auth })).status()).toBe(200)
  for (let i = 0; i < 29; i++) expect((await request.get('/v1/articles?limit=1', { headers: auth })).status()).toBe(200)

  await page.goto('/settings/api-keys')
  await page.getByRole('link', { name: 'E2E busy key' }).click()
  const pages = page.getByRole('navigation', { name: 'Request pages' })
  const rows = page.getByRole('table', { name: 'Recent requests of this key' }).getByRole('row')
  await expect(pages).toContainText('1–25 of 30', { timeout: 15_000 })
  await expect(rows).toHaveCount(26)
  await expect(page.getByRole('table', { name: 'Recent requests of this key' })).not.toContainText('?tag')

  await pages.getByRole('button', { name: 'Older →' }).click()
  await expect(pages).toContainText('26–30 of 30')
  await expect(rows).toHaveCount(6)
  await expect(rows.last()).toContainText('GET /v1/articles?tag')
  await expect(pages.getByRole('button', { name: 'Older →' })).toBeDisabled()
  await page.screenshot({ path: 'docs/screenshots/api-key-requests.png', fullPage: true })

  await pages.getByRole('button', { name: '← Newer' }).click()
  await expect(pages).toContainText('1–25 of 30')
  await expect(pages.getByRole('button', { name: '← Newer' })).toBeDisabled()
})
