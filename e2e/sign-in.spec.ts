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
  await expect(page.getByRole('heading', { name: 'Welcome, Daily Planet Admin' })).toBeVisible()
  await expect(page.getByTestId('signed-in-user')).toContainText('(admin)')
  await expect(page.getByText('Daily Planet', { exact: true })).toBeVisible()

  await page.getByRole('button', { name: 'Sign out' }).click()
  await expect(page).toHaveURL(/\/signin/)
  await page.goto('/')
  await expect(page).toHaveURL(/\/signin$/)
})
