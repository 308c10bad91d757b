import { expect, test } from '@playwright/test'

// Run with `npx playwright test -c playwright.dev.config.ts`: the service as `npm run dev` serves it
// (the app server in development mode), opened at 127.0.0.1 rather than localhost, hydrates and signs in.
test('in dev mode, the portal opened at 127.0.0.1 hydrates and signs in', async ({ page }) => {
  const blocked: string[] = []
  page.on('response', (response) => {
    if (response.status() === 403 && new URL(response.url()).pathname.startsWith('/_next')) blocked.push(response.url())
  })
  await page.goto('/signin')
  expect(new URL(page.url()).hostname).toBe('127.0.0.1')
  await page.getByLabel('E-mail').fill('admin@dailyplanet.example')
  await page.getByLabel('Password').fill('newsroom-admin-dev')
  await page.getByRole('button', { name: 'Sign in' }).click()
  await expect(page.getByTestId('signed-in-user')).toContainText('(admin)', { timeout: 120_000 })
  expect(page.url()).not.toContain('password')
  expect(blocked).toEqual([])
})

test('in dev mode, a client cannot choose its own address with X-Forwarded-For', async ({ request }) => {
  // Unauthenticated requests are limited per address (60 a minute). Were a client-sent
  // X-Forwarded-For believed, a new made-up address per request would never be limited.
  const statuses: number[] = []
  for (let i = 0; i < 70; i++) {
    const answer = await request.get('/v1/articles', { headers: { 'X-Forwarded-For': `203.0.113.${i}` } })
    statuses.push(answer.status())
  }
  expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401])
  expect(statuses).toContain(429)
})
