import { expect, test, type Page } from '@playwright/test'
import { signedInContext } from './support/portal-session.ts'

// A phone held upright (390 px): the navigation folds behind a button and no page is wider than
// the screen; wide tables scroll inside their own box.

async function pageWidth(page: Page) {
  return page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth }))
}

const pages = ['/', '/articles', '/articles/new', '/settings/api-keys', '/settings/api-keys/new', '/settings/webhooks', '/settings/webhooks/new', '/settings/users', '/settings/departments', '/settings/audit-log']

test('at 390 px every portal page fits the screen and the navigation opens from a menu button', async ({ browser }) => {
  const context = await signedInContext(browser, 'admin', { viewport: { width: 390, height: 844 } })
  const page = await context.newPage()
  for (const path of pages) {
    await page.goto(path)
    await expect(page.locator('main h1').first()).toBeVisible()
    // Lists fill in after hydration; measure once they have.
    await page.waitForLoadState('networkidle')
    const { scrollWidth, clientWidth } = await pageWidth(page)
    expect(scrollWidth, `${path} is ${scrollWidth} px wide on a ${clientWidth} px screen`).toBeLessThanOrEqual(clientWidth)
  }

  // An article's workspace: the editor, workflow panel, history and revisions.
  await page.goto('/articles?status=published')
  await page.getByRole('table').getByRole('link').first().click()
  await expect(page.getByTestId('article-status')).toBeVisible()
  await page.waitForLoadState('networkidle')
  const article = await pageWidth(page)
  expect(article.scrollWidth, `${page.url()} is ${article.scrollWidth} px wide`).toBeLessThanOrEqual(article.clientWidth)

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
