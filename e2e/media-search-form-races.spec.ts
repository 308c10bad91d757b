import { expect, test, type Page, type Route } from '@playwright/test'
import { queryE2eDatabase } from './support/e2e-database.ts'
import { signedInContext } from './support/portal-session.ts'
import { unique } from './support/unique.ts'
import { noisePhoto, uploadFromMediaPage } from './support/media-photos.ts'

// The Media page's search form against the address when navigations overlap: whatever the
// editor does while a search is on its way, the form ends up showing what the address and the
// results show, or what the editor has typed since.

/** Holds the page (and its RSC payload) for addresses matching `matches` until released. */
async function hold(page: Page, matches: (url: URL) => boolean) {
  let release!: () => void
  const held = new Promise<void>((resolve) => (release = resolve))
  const seen: string[] = []
  await page.route(matches, async (route: Route) => {
    seen.push(route.request().url())
    await held
    await route.continue().catch(() => undefined)
  })
  return { release, seen }
}

const searchForm = (page: Page) => page.getByRole('search', { name: 'Search the media library' })
const searchBox = (page: Page) => searchForm(page).getByLabel('Search', { exact: true })
const creditBox = (page: Page) => searchForm(page).getByLabel('Credit', { exact: true })
const searchButton = (page: Page) => page.getByRole('button', { name: 'Search', exact: true })
const param = (page: Page, name: string) => new URL(page.url()).searchParams.get(name)

test('a search sent and then taken back (the form set again to the search shown, Search again): Back to the search before shows that search in the form too', async ({ browser }) => {
  const tag = unique()
  const context = await signedInContext(browser, 'editor')
  const page = await context.newPage()
  await uploadFromMediaPage(page, `gull-${tag}.jpg`, 31)
  await uploadFromMediaPage(page, `tern-${tag}.jpg`, 32)

  // Two searches, each a history entry: gull, then tern.
  await page.goto('/media')
  await searchBox(page).fill(`gull-${tag}`)
  await searchButton(page).click()
  await expect(page.getByTestId('media-tile')).toHaveCount(1)
  await expect(page.getByTestId('media-tile')).toContainText(`gull-${tag}.jpg`)
  await searchBox(page).fill(`tern-${tag}`)
  await searchButton(page).click()
  await expect(page.getByTestId('media-tile')).toHaveCount(1)
  await expect(page.getByTestId('media-tile')).toContainText(`tern-${tag}.jpg`)

  // On a slow connection the editor asks for gull again, thinks better of it at once, and asks for tern again.
  const slow = await hold(page, (url) => url.pathname === '/media' && url.searchParams.get('q') === `gull-${tag}`)
  await searchBox(page).fill(`gull-${tag}`)
  await searchButton(page).click()
  await expect.poll(() => slow.seen.length).toBeGreaterThan(0)
  await searchBox(page).fill(`tern-${tag}`)
  await searchButton(page).click()
  await page.waitForTimeout(500)
  slow.release()
  await page.waitForTimeout(1_000)
  await page.unroute('**/*')

  // Whatever the page settled on, the form says the same as the address and the results.
  const settled = param(page, 'q')
  await expect(searchBox(page)).toHaveValue(settled ?? '')

  // Back: the search before. The form follows the address there.
  await page.goBack()
  await expect.poll(() => param(page, 'q')).not.toBe(settled)
  const before = param(page, 'q') ?? ''
  await expect(page.getByTestId('media-tile').first()).toContainText(before ? `${before}.jpg` : '')
  await expect(searchBox(page)).toHaveValue(before)
  await context.close()
})

test('two searches sent quickly, the first one slow: the page ends on the second, and what was typed after it stays', async ({ browser }) => {
  const tag = unique()
  const context = await signedInContext(browser, 'editor')
  const page = await context.newPage()
  const pier = await uploadFromMediaPage(page, `pier-${tag}.jpg`, 41)
  await uploadFromMediaPage(page, `jetty-${tag}.jpg`, 42)
  await queryE2eDatabase(`UPDATE media SET credit = 'Dock ${tag}' WHERE id = $1`, [pier])

  await page.goto('/media')
  const slow = await hold(page, (url) => url.pathname === '/media' && url.searchParams.get('q') === tag && !url.searchParams.has('credit'))
  await searchBox(page).fill(tag)
  await searchButton(page).click()
  await expect.poll(() => slow.seen.length).toBeGreaterThan(0)
  await creditBox(page).fill(`dock ${tag}`)
  await searchButton(page).click()
  await expect.poll(() => param(page, 'credit')).toBe(`dock ${tag}`)
  await expect(page.getByTestId('media-tile')).toHaveCount(1)
  // Typed after the second search landed, not sent.
  await creditBox(page).fill(`dock ${tag} north`)
  slow.release()
  await page.waitForTimeout(1_500)
  expect(param(page, 'credit')).toBe(`dock ${tag}`)
  await expect(page.getByTestId('media-tile')).toHaveCount(1)
  await expect(creditBox(page)).toHaveValue(`dock ${tag} north`)
  await context.close()
})

test('typed while a search is on its way, then Back and Forward: the form follows the address each time', async ({ browser }) => {
  const tag = unique()
  const context = await signedInContext(browser, 'editor')
  const page = await context.newPage()
  const pier = await uploadFromMediaPage(page, `wharf-${tag}.jpg`, 51)
  await uploadFromMediaPage(page, `slip-${tag}.jpg`, 52)
  await queryE2eDatabase(`UPDATE media SET credit = 'Quay ${tag}' WHERE id = $1`, [pier])

  await page.goto('/media')
  await searchBox(page).fill(tag)
  await searchButton(page).click()
  await expect(page.getByTestId('media-tile')).toHaveCount(2)

  const slow = await hold(page, (url) => url.pathname === '/media' && url.searchParams.has('credit'))
  await creditBox(page).fill(`quay ${tag}`)
  await searchButton(page).click()
  await expect.poll(() => slow.seen.length).toBeGreaterThan(0)
  await searchBox(page).fill(`${tag} more`)
  await page.goBack()
  await expect.poll(() => param(page, 'q')).toBeNull()
  await expect(searchBox(page)).toHaveValue('')
  await expect(creditBox(page)).toHaveValue('')
  slow.release()
  await page.waitForTimeout(1_500)
  // Whatever it settled on, form and address agree.
  await expect(searchBox(page)).toHaveValue(param(page, 'q') ?? '')
  await expect(creditBox(page)).toHaveValue(param(page, 'credit') ?? '')
  await page.unroute('**/*')
  await page.goForward()
  await page.waitForTimeout(1_000)
  await expect(searchBox(page)).toHaveValue(param(page, 'q') ?? '')
  await expect(creditBox(page)).toHaveValue(param(page, 'credit') ?? '')
  await context.close()
})

test('an image opened while a search is on its way: the search lands with the image open, and Back returns to the search before', async ({ browser }) => {
  const tag = unique()
  const context = await signedInContext(browser, 'editor')
  const page = await context.newPage()
  const cove = await uploadFromMediaPage(page, `cove-${tag}.jpg`, 61)
  await uploadFromMediaPage(page, `bay-${tag}.jpg`, 62)
  await queryE2eDatabase(`UPDATE media SET credit = 'Cliff ${tag}' WHERE id = $1`, [cove])

  await page.goto('/media')
  await searchBox(page).fill(tag)
  await searchButton(page).click()
  await expect(page.getByTestId('media-tile')).toHaveCount(2)

  const slow = await hold(page, (url) => url.pathname === '/media' && url.searchParams.has('credit') && !url.searchParams.has('media'))
  await creditBox(page).fill(`cliff ${tag}`)
  await searchButton(page).click()
  await expect.poll(() => slow.seen.length).toBeGreaterThan(0)
  await page.getByRole('button', { name: `Edit cove-${tag}.jpg` }).click()
  await page.waitForTimeout(300)
  slow.release()
  await expect.poll(() => param(page, 'media')).toBe(cove)
  await page.waitForTimeout(1_000)
  expect(param(page, 'credit')).toBe(`cliff ${tag}`)
  await expect(page.getByTestId('media-tile')).toHaveCount(1)
  await expect(creditBox(page)).toHaveValue(`cliff ${tag}`)
  await page.unroute('**/*')
  // Each applied search is a history entry: Back returns to the search before it.
  await page.goBack()
  await expect.poll(() => param(page, 'credit')).toBeNull()
  expect(param(page, 'q')).toBe(tag)
  await expect(page.getByTestId('media-tile')).toHaveCount(2)
  await expect(creditBox(page)).toHaveValue('')
  await context.close()
})

test('a search sent and taken back on a slow connection, then Back: opening an image there keeps the search shown', async ({ browser }) => {
  const tag = unique()
  const context = await signedInContext(browser, 'editor')
  const page = await context.newPage()
  const gull = await uploadFromMediaPage(page, `gull-${tag}.jpg`, 71)
  await uploadFromMediaPage(page, `tern-${tag}.jpg`, 72)

  await page.goto('/media')
  await searchBox(page).fill(`gull-${tag}`)
  await searchButton(page).click()
  await expect(page.getByTestId('media-tile')).toHaveCount(1)
  await expect(page.getByTestId('media-tile')).toContainText(`gull-${tag}.jpg`)
  await searchBox(page).fill(`tern-${tag}`)
  await searchButton(page).click()
  await expect(page.getByTestId('media-tile')).toHaveCount(1)
  await expect(page.getByTestId('media-tile')).toContainText(`tern-${tag}.jpg`)

  const slow = await hold(page, (url) => url.pathname === '/media' && url.searchParams.get('q') === `gull-${tag}`)
  await searchBox(page).fill(`gull-${tag}`)
  await searchButton(page).click()
  await expect.poll(() => slow.seen.length).toBeGreaterThan(0)
  await searchBox(page).fill(`tern-${tag}`)
  await searchButton(page).click()
  await page.waitForTimeout(500)
  slow.release()
  await page.waitForTimeout(1_000)
  await page.unroute('**/*')

  await page.goBack()
  await expect.poll(() => param(page, 'q')).toBe(`gull-${tag}`)
  await expect(page.getByTestId('media-tile')).toHaveCount(1)
  await page.getByRole('button', { name: `Edit gull-${tag}.jpg` }).click()
  await expect.poll(() => param(page, 'media')).toBe(gull)
  // Opening an image changes only which image is open.
  expect(param(page, 'q')).toBe(`gull-${tag}`)
  await expect(page.getByTestId('media-tile')).toHaveCount(1)
  await expect(page.getByTestId('media-tile')).toContainText(`gull-${tag}.jpg`)
  await context.close()
})

test('an upload finishing while a search is on its way: the image opens on the new search, and Back returns to the search before', async ({ browser }) => {
  const tag = unique()
  const context = await signedInContext(browser, 'editor')
  const page = await context.newPage()
  await uploadFromMediaPage(page, `reef-${tag}.jpg`, 81)
  await uploadFromMediaPage(page, `shoal-${tag}.jpg`, 82)

  await page.goto('/media')
  await searchBox(page).fill(tag)
  await searchButton(page).click()
  await expect(page.getByTestId('media-tile')).toHaveCount(2)

  const slow = await hold(page, (url) => url.pathname === '/media' && url.searchParams.get('q') === `reef-${tag}` && !url.searchParams.has('media'))
  await searchBox(page).fill(`reef-${tag}`)
  await searchButton(page).click()
  await expect.poll(() => slow.seen.length).toBeGreaterThan(0)
  const name = `reef-${tag}-new.jpg`
  await page.getByLabel('Choose images to upload').setInputFiles({ name, mimeType: 'image/jpeg', buffer: await noisePhoto(320, 240, 83) })
  await expect(page.getByTestId('media-upload').filter({ hasText: name }).getByRole('status')).toHaveText('Uploaded. Add its alt text below.')
  slow.release()
  await expect.poll(() => param(page, 'media')).not.toBeNull()
  await page.waitForTimeout(1_000)
  expect(param(page, 'q')).toBe(`reef-${tag}`)
  await expect(searchBox(page)).toHaveValue(`reef-${tag}`)
  await page.unroute('**/*')
  await page.goBack()
  await expect.poll(() => param(page, 'q')).toBe(tag)
  await expect(searchBox(page)).toHaveValue(tag)
  await context.close()
})
