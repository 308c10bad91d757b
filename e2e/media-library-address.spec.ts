import { expect, test } from '@playwright/test'
import { queryE2eDatabase } from './support/e2e-database.ts'
import { signedInContext } from './support/portal-session.ts'
import { unique } from './support/unique.ts'
import { uploadFromMediaPage } from './support/media-photos.ts'

// What the Media page and the body's figures keep true across reloads, links and other tabs:
// the search is in the address, and an image deleted elsewhere is not shown from a stale copy.

test('the search is in the address: a reload or a shared link keeps it, and Back returns to the search before', async ({ browser }) => {
  const tag = unique()
  const context = await signedInContext(browser, 'editor')
  const page = await context.newPage()
  const harbour = await uploadFromMediaPage(page, `harbour-${tag}.jpg`, 11)
  await uploadFromMediaPage(page, `quay-${tag}.jpg`, 12)
  await queryE2eDatabase(`UPDATE media SET credit = 'Port ${tag}' WHERE id = $1`, [harbour])

  await page.goto('/media')
  await page.getByLabel('Search', { exact: true }).fill(tag)
  await page.getByRole('button', { name: 'Search', exact: true }).click()
  await expect(page.getByTestId('media-tile')).toHaveCount(2)
  await page.getByLabel('Credit', { exact: true }).fill(`port ${tag}`)
  await page.getByRole('button', { name: 'Search', exact: true }).click()
  await expect(page.getByTestId('media-tile')).toHaveCount(1)
  expect(new URL(page.url()).searchParams.get('credit')).toBe(`port ${tag}`)

  // Reloaded, the page shows the same search, in the form and in the results.
  await page.reload()
  await expect(page.getByLabel('Credit', { exact: true })).toHaveValue(`port ${tag}`)
  await expect(page.getByTestId('media-tile')).toHaveCount(1)
  await expect(page.getByTestId('media-tile')).toContainText(`harbour-${tag}.jpg`)

  // A colleague opening the link sees what was shared.
  const colleague = await (await signedInContext(browser, 'writer')).newPage()
  await colleague.goto(page.url())
  await expect(colleague.getByTestId('media-tile')).toHaveCount(1)
  await expect(colleague.getByLabel('Search', { exact: true })).toHaveValue(tag)

  // Back: the search before (both photos), its form too.
  await page.goBack()
  await expect(page.getByTestId('media-tile')).toHaveCount(2)
  await expect(page.getByLabel('Credit', { exact: true })).toHaveValue('')
  await context.close()
  await colleague.context().close()
})

test('a filter typed while the search before it is still on its way is kept when that search lands', async ({ browser }) => {
  const tag = unique()
  const context = await signedInContext(browser, 'editor')
  const page = await context.newPage()
  const harbour = await uploadFromMediaPage(page, `pier-${tag}.jpg`, 13)
  await uploadFromMediaPage(page, `jetty-${tag}.jpg`, 14)
  await queryE2eDatabase(`UPDATE media SET credit = 'Dock ${tag}' WHERE id = $1`, [harbour])

  await page.goto('/media')
  // The first search's page is held on the way (a slow connection), while the editor goes on typing.
  let release!: () => void
  const held = new Promise<void>((resolve) => (release = resolve))
  const firstSearch = (url: URL) => url.pathname === '/media' && url.searchParams.get('q') === tag && !url.searchParams.has('credit')
  await page.route(firstSearch, async (route) => {
    await held
    await route.continue()
  })
  await page.getByLabel('Search', { exact: true }).fill(tag)
  await page.getByRole('button', { name: 'Search', exact: true }).click()
  await page.getByLabel('Credit', { exact: true }).fill(`dock ${tag}`)
  release()
  await expect.poll(() => new URL(page.url()).searchParams.get('q')).toBe(tag)
  await expect(page.getByTestId('media-tile')).toHaveCount(2)
  await expect(page.getByLabel('Credit', { exact: true })).toHaveValue(`dock ${tag}`)
  await page.getByRole('button', { name: 'Search', exact: true }).click()
  await expect(page.getByTestId('media-tile')).toHaveCount(1)
  await expect(page.getByTestId('media-tile')).toContainText(`pier-${tag}.jpg`)
  await context.close()
})

test('an image deleted in another tab: the draft showing it says it is gone when opened again, instead of showing the browser’s copy', async ({ browser }) => {
  const tag = unique()
  const context = await signedInContext(browser, 'editor')
  const page = await context.newPage()
  const name = `gone-${tag}.jpg`
  const mediaId = await uploadFromMediaPage(page, name, 21)
  const panel = page.getByTestId('media-editor')
  await panel.getByLabel('Alt text').fill('Floodwater in the square')
  await panel.getByRole('button', { name: 'Save image details' }).click()
  await expect(panel.getByTestId('media-save-status')).toHaveText('Saved. This is now version 2.')

  const headline = `Flood recedes ${tag}`
  await page.goto('/articles/new')
  await page.getByLabel('Headline').fill(headline)
  await page.getByRole('textbox', { name: 'Body' }).click()
  await page.keyboard.type('The water fell overnight.')
  await page.getByRole('button', { name: 'Insert image' }).click()
  const inserter = page.getByRole('dialog', { name: 'Insert an image from the library' })
  await inserter.getByLabel('Search the library').fill(name)
  await inserter.getByLabel('Search the library').press('Enter')
  await inserter.getByRole('button', { name: `Choose ${name}` }).click()
  await inserter.getByRole('button', { name: 'Insert image', exact: true }).click()
  await page.getByRole('button', { name: 'Create draft' }).click()
  await expect(page.getByRole('heading', { level: 1, name: headline })).toBeVisible()
  const draft = page.url()
  // The figure is shown (its preview loaded, and kept by the browser).
  await expect(page.getByTestId('body-figure').locator('img')).toHaveJSProperty('complete', true)
  expect(await page.getByTestId('body-figure').locator('img').evaluate((image: HTMLImageElement) => image.naturalWidth)).toBeGreaterThan(0)
  // It is announced by its caption or as a library image, never by its id.
  expect(await page.getByTestId('body-figure').locator('img').getAttribute('alt')).not.toContain(mediaId)

  const other = await context.newPage()
  await other.goto(`/media?media=${mediaId}`)
  await other.getByTestId('media-editor').getByRole('button', { name: 'Delete image' }).click()
  await other.getByRole('dialog', { name: `Delete ${name}?` }).getByRole('button', { name: 'Delete image' }).click()
  await expect(other.getByRole('dialog', { name: `Delete ${name}?` })).toBeHidden()

  await page.goto('/articles')
  await page.goto(draft)
  await expect(page.getByTestId('body-figure-missing')).toContainText(`This image (${mediaId}) is no longer in the media library`)
  await expect(page.getByTestId('body-figure').locator('img')).toHaveCount(0)
  await context.close()
})
