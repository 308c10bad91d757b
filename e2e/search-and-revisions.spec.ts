import { expect, test } from '@playwright/test'
import { createE2eApiToken } from './support/e2e-database.ts'
import { seedUsers, signedInContext } from './support/portal-session.ts'
import { unique } from './support/unique.ts'

test('an editor searches, opens the result, edits it twice, compares revisions and restores the first', async ({ browser }) => {
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
  await revisions.getByRole('button', { name: 'Compare revision 1 with current' }).click()
  const comparison = page.getByTestId('revision-comparison')
  await expect(comparison.locator('ins')).toContainText(['updated', ', and so are the tourists'])
  await comparison.scrollIntoViewIfNeeded()
  await page.screenshot({ path: 'docs/screenshots/revision-compare.png' })

  await revisions.getByRole('button', { name: 'Restore revision 1' }).click()
  await page.getByRole('dialog', { name: 'Restore revision 1?' }).getByRole('button', { name: 'Yes, restore revision 1' }).click()
  await expect(page.getByText('Restored revision 1 as a new revision. This is now version 4.')).toBeVisible()
  await expect(page.getByRole('heading', { level: 1, name: headline, exact: true })).toBeVisible()
  await expect(page.getByLabel('Lede')).toHaveValue('The ferries are back.')
  await expect(revisions.getByRole('row')).toHaveCount(5)
  await context.close()
})

test('every place names the same article version, revisions keep their own numbers, any two compare, and a restore says what it restored', async ({ browser }) => {
  const context = await signedInContext(browser, 'editor')
  const page = await context.newPage()
  const headline = `Tram line ${unique()}`

  await page.goto('/articles/new')
  await page.getByLabel('Headline').fill(headline)
  await page.getByLabel('Lede').fill('First lede.')
  await page.getByRole('button', { name: 'Create draft' }).click()
  await expect(page.getByRole('heading', { level: 1, name: headline })).toBeVisible()

  await page.getByLabel('Lede').fill('Second lede.')
  await page.getByRole('button', { name: 'Save changes' }).click()
  await expect(page.getByTestId('save-status')).toHaveText('Saved. This is now version 2.')

  // Two workflow moves raise the article version without a revision.
  await page.getByRole('button', { name: 'Submit for review' }).click()
  await expect(page.getByTestId('article-version')).toHaveText('3')
  await expect(page.getByTestId('save-status')).toHaveText('')
  await page.getByRole('button', { name: 'Send back to draft' }).click()
  await page.getByLabel(/What needs doing/).fill('One more pass on the lede.')
  await page.getByRole('button', { name: 'Send back', exact: true }).click()
  await expect(page.getByTestId('article-version')).toHaveText('4')

  await page.getByLabel('Lede').fill('Third lede.')
  await page.getByRole('button', { name: 'Save changes' }).click()
  await expect(page.getByTestId('save-status')).toHaveText('Saved. This is now version 5.')
  await expect(page.getByTestId('article-version')).toHaveText('5')

  const revisions = page.getByTestId('article-revisions')
  const rows = revisions.getByRole('row')
  await expect(rows).toHaveCount(4)
  // Revision, article version, …: the current row names the version the status box does.
  await expect(rows.nth(1).getByRole('cell').nth(0)).toHaveText('3 (current)')
  await expect(rows.nth(1).getByRole('cell').nth(1)).toHaveText('5')
  await expect(rows.nth(2).getByRole('cell').nth(0)).toHaveText('2')
  await expect(rows.nth(2).getByRole('cell').nth(1)).toHaveText('2')
  // The current row offers nothing to compare with itself.
  await expect(rows.nth(1).getByRole('button')).toHaveCount(0)

  // Any two revisions.
  await page.getByLabel('First revision').selectOption({ label: 'Revision 1 (version 1)' })
  await page.getByLabel('Second revision').selectOption({ label: 'Revision 2 (version 2)' })
  await page.getByRole('button', { name: 'Compare', exact: true }).click()
  const comparison = page.getByTestId('revision-comparison')
  await expect(comparison.getByRole('heading')).toHaveText('Revision 1 (version 1) → revision 2 (version 2)')
  await expect(comparison.locator('del')).toContainText(['First'])
  await expect(comparison.locator('ins')).toContainText(['Second'])
  await comparison.scrollIntoViewIfNeeded()
  await page.screenshot({ path: 'docs/screenshots/revision-compare-any-two.png' })

  // A restore asks first, then is a revision that says which one it restored.
  await revisions.getByRole('button', { name: 'Restore revision 1' }).click()
  const confirmation = page.getByRole('dialog', { name: 'Restore revision 1?' })
  await expect(confirmation).toContainText('Nothing is lost: the text now is revision 3.')
  await page.screenshot({ path: 'docs/screenshots/revision-restore-confirm.png' })
  await confirmation.getByRole('button', { name: 'Cancel' }).click()
  await expect(confirmation).toBeHidden()
  await expect(rows).toHaveCount(4)

  await revisions.getByRole('button', { name: 'Restore revision 1' }).click()
  await confirmation.getByRole('button', { name: 'Yes, restore revision 1' }).click()
  await expect(page.getByText('Restored revision 1 as a new revision. This is now version 6.')).toBeVisible()
  await expect(page.getByTestId('article-version')).toHaveText('6')
  await expect(rows).toHaveCount(5)
  await expect(rows.nth(1).getByRole('cell').nth(0)).toHaveText('4 (current)')
  await expect(rows.nth(1).getByRole('cell').nth(1)).toHaveText('6')
  await expect(rows.nth(1).getByRole('cell').nth(4)).toHaveText('Restored from revision 1 (lede)')
  await expect(page.getByLabel('Lede')).toHaveValue('First lede.')
  await revisions.scrollIntoViewIfNeeded()
  await page.screenshot({ path: 'docs/screenshots/revisions-numbered.png' })
  await context.close()
})

test('a search matching more articles than it counts exactly says about how many', async ({ browser, request }) => {
  // More matches than the 200 a search ranks and counts exactly (SEARCH_RANK_WINDOW), all of them recent.
  const token = await createE2eApiToken('daily-planet', seedUsers.editor.email, ['articles:read', 'articles:write'])
  const word = `wirecopy${unique()}`
  const late = `late${unique()}`
  for (const [round, count] of [[0, 250], [1, 20]] as const) {
    const created = await request.post('/v1/articles/bulk', {
      headers: { authorization: `Bearer ${token}` },
      data: { articles: Array.from({ length: count }, (_, i) => ({ external_id: `${word}-${round}-${i}`, headline: `Wire ${word}${round === 1 ? ` ${late}` : ''} ${i}` })) },
    })
    expect(created.status(), await created.text()).toBe(200)
  }
  const context = await signedInContext(browser, 'editor')
  const page = await context.newPage()
  await page.goto(`/articles?q=${word}`)
  await expect(page.getByRole('status').filter({ hasText: /^Showing 1–50 of about [\d,]+ articles\.$/ })).toBeVisible()
  await expect(page.getByRole('row').filter({ hasText: word })).toHaveCount(50)
  // A search within the bound is counted exactly, and says so without "about".
  await page.goto(`/articles?q=${late}`)
  await expect(page.getByRole('status').filter({ hasText: /^Showing 1–20 of 20 articles\.$/ })).toBeVisible()
  await context.close()
})
