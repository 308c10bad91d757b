import { expect, type Page } from '@playwright/test'

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
