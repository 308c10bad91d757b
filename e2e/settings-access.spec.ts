import { expect, test } from '@playwright/test'
import { seeded, signIn } from './support/portal.ts'

const settingsPages = [
  '/settings',
  '/settings/api-keys',
  '/settings/api-keys/new',
  '/settings/webhooks',
  '/settings/webhooks/new',
  '/settings/webhooks/whk_anything',
  '/settings/webhooks/whk_anything/edit',
  '/settings/users',
  '/settings/departments',
  '/settings/audit-log',
  '/settings/single-sign-on',
  '/settings/two-factor',
]

// One call per settings area, in tRPC's own HTTP format (POST for mutations, GET for queries).
const mutations: [string, unknown][] = [
  ['apiKeys.create', { name: 'Sneaky', scopes: ['admin'] }],
  ['apiKeys.revoke', { id: 'tok_anything' }],
  ['webhooks.create', { url: 'https://hooks.example.com/x', events: ['user.created'], secret: 'a-secret-of-sixteen+' }],
  ['users.create', { email: 'sneaky@dailyplanet.example', name: 'Sneaky', role: 'admin' }],
  ['users.changeRole', { userId: 'usr_anything', role: 'admin' }],
  ['departments.add', { name: 'Sneaky desk' }],
  ['sso.save', { displayName: 'Sneaky IdP', issuer: 'https://idp.example.org', clientId: 'x', clientSecret: 'y', requireSso: true }],
  ['twoFactorPolicy.save', { policy: 'all', graceDays: 0 }],
  ['users.resetSecondFactors', { userId: 'usr_anything' }],
]

for (const role of ['writer', 'editor'] as const) {
  test(`a${role === 'editor' ? 'n' : ''} ${role} cannot reach Settings by link, by URL or by calling its procedures`, async ({ page }) => {
    await signIn(page, seeded[role])
    await expect(page.getByTestId('signed-in-user')).toContainText(`(${role})`)

    const nav = page.getByRole('navigation', { name: 'Main' })
    await expect(nav.getByRole('link', { name: 'Home' })).toBeVisible()
    for (const name of ['API Keys', 'Webhooks', 'Users', 'Departments', 'Single sign-on', 'Two-factor policy', 'Audit log']) await expect(nav.getByRole('link', { name })).toHaveCount(0)
    // Settings holds only their own Security page.
    await expect(nav.getByRole('link', { name: 'Security' })).toBeVisible()

    for (const path of settingsPages) {
      const response = await page.goto(path)
      expect(response?.status(), path).toBe(403)
      await expect(page.getByRole('heading', { level: 1, name: '403 · Admins only' }), path).toBeVisible()
      await expect(page.getByRole('alert').filter({ hasText: 'Your account does not have access' })).toBeVisible()
      await expect(page.getByRole('table')).toHaveCount(0)
      await expect(page.getByRole('link', { name: 'Create new key' })).toHaveCount(0)
    }

    for (const [path, input] of mutations) {
      const answer = await page.request.post(`/api/trpc/${path}`, { data: input, headers: { 'x-newsroom-portal': '1' } })
      expect(answer.status(), path).toBe(403)
      expect((await answer.json()).error.data, path).toMatchObject({ code: 'FORBIDDEN', httpStatus: 403 })
    }
    // The portal's own client batches calls: each one of the batch is refused.
    const batch = await page.request.post('/api/trpc/apiKeys.create,webhooks.delete?batch=1', {
      data: { 0: { name: 'Batched', scopes: ['articles:read'] }, 1: { webhookId: 'whk_anything' } },
      headers: { 'x-newsroom-portal': '1' },
    })
    expect(batch.status()).toBe(403)
    expect((await batch.json()).map((item: { error: { data: { code: string } } }) => item.error.data.code)).toEqual(['FORBIDDEN', 'FORBIDDEN'])
    for (const query of ['apiKeys.list', 'webhooks.list', 'users.list', 'departments.list', 'sso.get']) {
      const answer = await page.request.get(`/api/trpc/${query}`)
      expect(answer.status(), query).toBe(403)
      expect(JSON.stringify(await answer.json())).not.toContain('@dailyplanet.example')
    }
  })
}

test('without a session, Settings sends to the sign-in page and the procedures answer 401', async ({ page, request }) => {
  await page.goto('/settings/users')
  await expect(page).toHaveURL(/\/signin/)
  const answer = await request.post('/api/trpc/users.create', {
    data: { email: 'x@example.com', name: 'X', role: 'admin' },
    headers: { 'x-newsroom-portal': '1' },
  })
  expect(answer.status()).toBe(401)
  expect((await answer.json()).error.data).toMatchObject({ code: 'UNAUTHORIZED' })
})

test('an admin sees Settings in the navigation', async ({ page }) => {
  await signIn(page, seeded.admin)
  const nav = page.getByRole('navigation', { name: 'Main' })
  for (const name of ['API Keys', 'Webhooks', 'Users', 'Departments', 'Single sign-on', 'Two-factor policy', 'Audit log']) await expect(nav.getByRole('link', { name })).toBeVisible()
  await nav.getByRole('link', { name: 'Audit log' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Audit log' })).toBeVisible()
})
