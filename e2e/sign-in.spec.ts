import { expect, test } from '@playwright/test'

test('the seeded admin signs in, sees the home page, and signs out', async ({ page }) => {
  await page.goto('/')
  await expect(page).toHaveURL(/\/signin$/)

  await page.getByLabel('E-mail').fill('admin@dailyplanet.example')
  await page.getByLabel('Password').fill('wrong password')
  await page.getByRole('button', { name: 'Sign in' }).click()
  await expect(page.getByRole('alert').filter({ hasText: 'do not match' })).toBeVisible()

  await page.getByLabel('Password').fill('newsroom-admin-dev')
  await page.getByRole('button', { name: 'Sign in' }).click()
  await expect(page.getByRole('heading', { name: 'Your desk' })).toBeVisible()
  await expect(page.getByText('Daily Planet Admin, an admin at Daily Planet.')).toBeVisible()
  await expect(page.getByTestId('signed-in-user')).toContainText('(admin)')
  await expect(page.getByText('Daily Planet', { exact: true })).toBeVisible()

  await page.getByRole('button', { name: 'Sign out' }).click()
  await expect(page).toHaveURL(/\/signin/)
  await page.goto('/')
  await expect(page).toHaveURL(/\/signin$/)
})

test('pages carry a nonce CSP and security headers, and cross-site mutations are refused', async ({ page, request }) => {
  const response = await page.goto('/signin')
  const headers = response!.headers()
  const nonce = /'nonce-([^']+)'/.exec(headers['content-security-policy'] ?? '')?.[1]
  expect(nonce).toBeTruthy()
  expect(headers['content-security-policy']).toContain("frame-ancestors 'none'")
  expect(headers['content-security-policy']).not.toContain("'unsafe-inline' 'nonce")
  expect(headers['x-content-type-options']).toBe('nosniff')
  expect(headers['referrer-policy']).toBe('strict-origin-when-cross-origin')
  // Every script Next rendered carries this response's nonce, and the page still works.
  const scriptNonces = await page.locator('script').evaluateAll((scripts) => scripts.map((script) => (script as HTMLScriptElement).nonce))
  expect(scriptNonces.length).toBeGreaterThan(0)
  expect(new Set(scriptNonces)).toEqual(new Set([nonce]))
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeEnabled()

  const crossSite = await request.post('/api/trpc/apiKeys.revoke', { data: { id: 'tok_x' }, headers: { origin: 'https://evil.example' } })
  expect(crossSite.status()).toBe(403)
})

test('before the page hydrates, a sign-in submit never puts the password in the URL', async ({ browser }) => {
  // Without JavaScript the form submits natively, as it would on a slow link before hydration.
  const context = await browser.newContext({ javaScriptEnabled: false })
  const page = await context.newPage()
  await page.goto('/signin')
  await page.getByLabel('E-mail').fill('admin@dailyplanet.example')
  await page.getByLabel('Password').fill('newsroom-admin-dev')
  const submitted = page.waitForRequest((request) => new URL(request.url()).pathname === '/signin' && request.isNavigationRequest() && request.method() === 'POST')
  await page.getByRole('button', { name: 'Sign in' }).click()
  await submitted
  await page.waitForLoadState()
  expect(page.url()).not.toContain('newsroom-admin-dev')
  expect(page.url()).not.toContain('password')
  await context.close()
})
