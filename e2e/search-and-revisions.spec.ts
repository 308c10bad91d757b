import { expect, test } from '@playwright/test'
import { signedInContext } from './support/portal-session.ts'

const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`

test('an editor searches, opens the result, edits it twice, compares versions and restores the first', async ({ browser }) => {
  const context = await signedInContext(browser, 'editor')
  const page = await context.newPage()
  const word = `quokka${unique()}`
  const headline = `Harbour ${word} story`

  await page.goto('/articles/new')
  await page.getByLabel('Headline').fill(headline)
  await page.getByLabel('Lede').fill('The ferries are back.')
  await page.getByRole('textbox', { name: 'Body' }).click()
  await page.keyboard.type(`Boats returned to the ${word} quay this morning.`)
  await page.getByRole('button', { name: 'Create draft' }).click()
  await expect(page.getByRole('heading', { level: 1, name: headline })).toBeVisible()

  // The search keeps the filter already chosen, and lands in the URL.
  await page.goto('/articles?status=draft')
  await page.getByRole('searchbox', { name: 'Search' }).fill(word)
  await expect(page).toHaveURL(new RegExp(`q=${word}`))
  await expect(page).toHaveURL(/status=draft/)
  const result = page.getByRole('row').filter({ hasText: headline })
  await expect(result).toHaveCount(1)
  await expect(result.getByTestId('search-snippet').locator('mark').first()).toHaveText(word)
  await page.screenshot({ path: 'docs/screenshots/article-search.png' })
  // A reload shows the same search.
  await page.reload()
  await expect(page.getByRole('searchbox', { name: 'Search' })).toHaveValue(word)
  await expect(page.getByRole('row').filter({ hasText: headline })).toHaveCount(1)

  await page.getByRole('link', { name: headline }).click()
  await expect(page.getByRole('heading', { level: 1, name: headline })).toBeVisible()

  await page.getByLabel('Headline').fill(`${headline} updated`)
  await page.getByRole('button', { name: 'Save changes' }).click()
  await expect(page.getByTestId('save-status')).toHaveText('Saved. This is now version 2.')
  await page.getByLabel('Lede').fill('The ferries are back, and so are the tourists.')
  await page.getByRole('button', { name: 'Save changes' }).click()
  await expect(page.getByTestId('save-status')).toHaveText('Saved. This is now version 3.')

  const revisions = page.getByTestId('article-revisions')
  await expect(revisions.getByRole('row')).toHaveCount(4)
  await revisions.getByRole('button', { name: 'Compare version 1 with current' }).click()
  const comparison = page.getByTestId('revision-comparison')
  await expect(comparison.locator('ins')).toContainText(['updated', ', and so are the tourists'])
  await comparison.scrollIntoViewIfNeeded()
  await page.screenshot({ path: 'docs/screenshots/revision-compare.png' })

  await revisions.getByRole('button', { name: 'Restore version 1' }).click()
  // A restore replaces the text on screen: it asks first.
  const restoreDialog = page.getByRole('dialog', { name: 'Restore version 1?' })
  await expect(restoreDialog).toContainText('today’s text stays in Revisions')
  await restoreDialog.getByRole('button', { name: 'Restore version 1' }).click()
  await expect(page.getByText('Restored version 1. This is now version 4.')).toBeVisible()
  await expect(page.getByRole('heading', { level: 1, name: headline, exact: true })).toBeVisible()
  await expect(page.getByLabel('Lede')).toHaveValue('The ferries are back.')
  await expect(revisions.getByRole('row')).toHaveCount(5)
  await context.close()
})
