import { readdirSync } from 'node:fs'
import path from 'node:path'
import { expect, test, type APIRequestContext, type Page } from '@playwright/test'
import { createE2eApiToken, queryE2eDatabase } from './support/e2e-database.ts'
import { seedUsers, signedInContext } from './support/portal-session.ts'

// A phone held upright (390 px): the navigation folds behind a button and no page is wider than
// the screen; lists become stacked cards, and no button or link lies off the screen.

async function pageWidth(page: Page) {
  return page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth }))
}

/** Every visible button and link whose box reaches past the screen's left or right edge. */
async function actionsOffScreen(page: Page) {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth
    return [...document.querySelectorAll<HTMLElement>('button, a[href], [role="button"], input[type="submit"]')]
      .filter((element) => element.offsetParent !== null || getComputedStyle(element).position === 'fixed')
      .map((element) => ({ element, box: element.getBoundingClientRect() }))
      .filter(({ box }) => box.width > 0 && box.height > 0 && (box.left < -0.5 || box.right > width + 0.5))
      .map(({ element, box }) => `${element.tagName.toLowerCase()} “${(element.textContent ?? element.getAttribute('aria-label') ?? '').trim().slice(0, 40)}” at ${Math.round(box.left)}–${Math.round(box.right)} px`)
  })
}

/** The address of every page under app/(portal), route groups left out, dynamic segments as written ([article_id]). */
function portalRoutes(directory = path.join('app', '(portal)'), route = ''): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isFile()) return entry.name === 'page.tsx' ? [route || '/'] : []
    const segment = /^\(.*\)$/.test(entry.name) ? '' : `/${entry.name}`
    return portalRoutes(path.join(directory, entry.name), route + segment)
  })
}

/** An API key, a webhook and an article of the Daily Planet, for the pages about one of them. */
async function onePerKind(request: APIRequestContext) {
  const token = await createE2eApiToken('daily-planet', seedUsers.admin.email, ['articles:read', 'articles:write', 'webhooks:manage'], `Narrow sweep ${Date.now()}`)
  const headers = { Authorization: `Bearer ${token}` }
  const hook = await request.post('/v1/webhooks', { headers, data: { url: `https://hooks.example.com/narrow/${Date.now()}`, events: ['article.published'], secret: 'narrow-sweep-secret-0123456789' } })
  expect(hook.status()).toBe(201)
  const article = await request.post('/v1/articles', {
    headers,
    data: { headline: `A headline long enough to wrap twice on a phone held upright ${Date.now()}`, lede: 'Checked at 390 px.', body: '<p>Text.</p>', tags: ['phones'] },
  })
  expect(article.status()).toBe(201)
  const [key] = await queryE2eDatabase<{ id: string }>("SELECT id FROM api_tokens WHERE name LIKE 'Narrow sweep %' ORDER BY created_at DESC LIMIT 1")
  return { webhookId: (await hook.json()).webhook_id as string, articleId: (await article.json()).article_id as string, keyId: key!.id }
}

test('at 390 px every portal page fits the screen, every action is on it, and the navigation opens from a menu button', async ({ browser, request }) => {
  const { webhookId, articleId, keyId } = await onePerKind(request)
  const pages = [
    '/',
    '/articles',
    '/articles?status=published',
    '/articles?q=council',
    '/articles/new',
    '/media',
    `/articles/${articleId}`,
    `/articles/${articleId}/preview`,
    // Redirects an admin to the API keys.
    '/settings',
    '/settings/api-keys',
    '/settings/api-keys/new',
    `/settings/api-keys/${keyId}`,
    '/settings/webhooks',
    '/settings/webhooks/new',
    `/settings/webhooks/${webhookId}`,
    `/settings/webhooks/${webhookId}/edit`,
    '/settings/users',
    '/settings/departments',
    '/settings/audit-log',
    '/settings/export',
    '/settings/webhooks/waiting-events',
    '/settings/search',
    '/settings/single-sign-on',
    '/settings/two-factor',
    '/settings/security',
  ]
  // Every portal page the app has is in the sweep, so a new page cannot be missed.
  const routes = portalRoutes().map((route) => route.replace('[article_id]', articleId).replace('[key_id]', keyId).replace('[webhook_id]', webhookId))
  expect(routes.filter((route) => !pages.includes(route)), 'portal pages the sweep does not visit').toEqual([])
  // A sweep of every page: its time limit grows with the pages it visits (15 s each), not one minute for all.
  test.setTimeout(pages.length * 15_000)
  const context = await signedInContext(browser, 'admin', { viewport: { width: 390, height: 844 } })
  const page = await context.newPage()
  for (const path of pages) {
    await page.goto(path)
    await expect(page.locator('main h1').first()).toBeVisible()
    // Lists fill in after hydration; measure once they have.
    await page.waitForLoadState('networkidle')
    const { scrollWidth, clientWidth } = await pageWidth(page)
    // Soft: one run names every page that does not fit, not only the first.
    expect.soft(scrollWidth, `${path} is ${scrollWidth} px wide on a ${clientWidth} px screen`).toBeLessThanOrEqual(clientWidth)
    expect.soft(await actionsOffScreen(page), `actions off the screen on ${path}`).toEqual([])
  }

  // The list: its filters fold behind a Filters button, so the articles start near the top,
  // each a card with its headline, status, author and date.
  await page.goto('/articles')
  const filters = page.getByRole('button', { name: /^Filters/ })
  await expect(filters).toHaveAttribute('aria-expanded', 'false')
  await expect(page.getByRole('search', { name: 'Filter articles' })).toBeHidden()
  const firstCard = page.getByRole('table').getByRole('row').nth(1)
  await expect(firstCard).toBeVisible()
  expect((await firstCard.boundingBox())!.y, 'the first article starts on the first screen').toBeLessThan(844)
  for (const label of ['Status', 'Author', 'Published or scheduled']) await expect(firstCard.locator(`td[data-label="${label}"]`)).toBeVisible()
  await page.screenshot({ path: 'docs/screenshots/phone-article-list.png' })
  await filters.click()
  await expect(page.getByRole('search', { name: 'Filter articles' })).toBeVisible()
  await page.getByLabel('Status').selectOption('published')
  await page.getByRole('button', { name: 'Apply filters' }).click()
  await expect(page).toHaveURL(/status=published/)
  await expect(page.getByRole('button', { name: 'Filters (1 in use)' })).toBeVisible()

  // The key list: each key a card whose Revoke is on the screen.
  await page.goto('/settings/api-keys')
  await page.waitForLoadState('networkidle')
  const revoke = page.getByRole('button', { name: /^Revoke / }).first()
  await expect(revoke).toBeVisible()
  expect((await revoke.boundingBox())!.x + (await revoke.boundingBox())!.width).toBeLessThanOrEqual(390)
  await page.screenshot({ path: 'docs/screenshots/phone-api-keys.png' })

  await page.goto('/')
  const menu = page.getByRole('button', { name: 'Menu' })
  const articlesLink = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Articles' })
  await expect(menu).toHaveAttribute('aria-expanded', 'false')
  await expect(articlesLink).toBeHidden()
  await menu.click()
  await expect(menu).toHaveAttribute('aria-expanded', 'true')
  await articlesLink.click()
  await expect(page).toHaveURL(/\/articles$/)
  // Following a link folds the menu again.
  await expect(page.getByRole('button', { name: 'Menu' })).toHaveAttribute('aria-expanded', 'false')
  await context.close()
})

test('at a laptop’s width the navigation is always shown and there is no menu button', async ({ browser }) => {
  const context = await signedInContext(browser, 'admin')
  const page = await context.newPage()
  await page.goto('/')
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Articles' })).toBeVisible()
  await expect(page.getByRole('button', { name: 'Menu' })).toBeHidden()
  await context.close()
})
