import { expect, test, type Page } from '@playwright/test'
import sharp from 'sharp'
import { createE2eApiToken, createE2eContentKey, queryE2eDatabase } from './support/e2e-database.ts'
import { seedUsers, signedInContext } from './support/portal-session.ts'
import { unique } from './support/unique.ts'
import { articleIdOf } from './support/article-drafts.ts'

// The media library as a newsroom uses it: upload, describe, crop, put in a story, publish,
// and the site gets the picture; and who may delete whose image.

/** A photo-like JPEG (noise, so it does not compress away: the upload takes long enough to watch). */
async function photo(width: number, height: number, seed: number): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 3)
  let state = seed
  for (let index = 0; index < pixels.length; index++) {
    state = (state * 1103515245 + 12345) & 0x7fffffff
    pixels[index] = (state >> 16) & 0xff
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } }).jpeg({ quality: 95 }).toBuffer()
}


async function mediaRow(filename: string) {
  const [row] = await queryE2eDatabase<{ id: string; alt_text: string | null; focal_x: number; focal_y: number; created_by_id: string | null }>(
    'SELECT id, alt_text, focal_x, focal_y, created_by_id FROM media WHERE filename = $1 ORDER BY created_at DESC LIMIT 1',
    [filename],
  )
  if (!row) throw new Error(`No media ${filename}`)
  return row
}

async function expectNoHorizontalScroll(page: Page) {
  const { scrollWidth, clientWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth }))
  expect(scrollWidth).toBeLessThanOrEqual(clientWidth)
}

/** Drops files on the page's drop zone as a person dragging them from the desktop would. */
async function dropFile(page: Page, file: { name: string; mimeType: string; buffer: Buffer }) {
  const dataTransfer = await page.evaluateHandle(({ name, mimeType, base64 }) => {
    const bytes = Uint8Array.from(atob(base64), (character) => character.charCodeAt(0))
    const transfer = new DataTransfer()
    transfer.items.add(new File([bytes], name, { type: mimeType }))
    return transfer
  }, { name: file.name, mimeType: file.mimeType, base64: file.buffer.toString('base64') })
  const zone = page.getByTestId('media-drop-zone')
  await zone.dispatchEvent('dragover', { dataTransfer })
  await zone.dispatchEvent('drop', { dataTransfer })
}

test('upload with progress, alt text and focal point, featured image and an inserted image, publish, and the site gets a rendition', async ({ browser, request }) => {
  test.setTimeout(180_000)
  const tag = unique()
  const harbour = { name: `harbour-${tag}.jpg`, mimeType: 'image/jpeg', buffer: await photo(1400, 900, 7) }
  const crowd = { name: `crowd-${tag}.jpg`, mimeType: 'image/jpeg', buffer: await photo(800, 600, 11) }

  const context = await signedInContext(browser, 'editor')
  const page = await context.newPage()
  page.on('dialog', (dialog) => {
    throw new Error(`A native ${dialog.type()} dialog was opened: ${dialog.message()}`)
  })
  await page.goto('/')
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Media' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Media' })).toBeVisible()

  // A slow uplink, so the progress of the upload can be seen (as on a reporter's phone).
  const cdp = await context.newCDPSession(page)
  await cdp.send('Network.enable')
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 20, downloadThroughput: -1, uploadThroughput: 600 * 1024 })
  await page.getByLabel('Choose images to upload').setInputFiles(harbour)
  const upload = page.getByTestId('media-upload').filter({ hasText: harbour.name })
  await expect(upload.getByRole('status')).toContainText(/Uploading… \d+% of/)
  await expect(upload.getByRole('progressbar', { name: `Upload of ${harbour.name}` })).toBeVisible()
  // The bar's maximum is the file's size until the browser's first progress event gives the
  // request's (multipart framing included): wait for that one rather than read the bar before it.
  await expect.poll(async () => Number(await upload.getByRole('progressbar').getAttribute('max'))).toBeGreaterThan(harbour.buffer.length)
  const midway = Number(await upload.getByRole('progressbar').getAttribute('value'))
  const total = Number(await upload.getByRole('progressbar').getAttribute('max'))
  expect(midway).toBeLessThan(total)
  await expect(upload.getByRole('status')).toHaveText('Uploaded. Add its alt text below.', { timeout: 60_000 })
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 })

  // The new image opens in the details panel: alt text, credit, and the focal point by a click.
  const editor = page.getByTestId('media-editor')
  await expect(editor.getByRole('heading', { name: harbour.name })).toBeVisible()
  await expect(editor.getByTestId('media-badges')).toContainText('No alt text')
  await editor.getByLabel('Alt text').fill('Fishing boats tied up at the harbour wall at dawn.')
  await editor.getByLabel('Credit').fill('Jane Doe / Daily Planet')
  const image = editor.getByTestId('focal-point-image')
  await expect.poll(() => image.locator('img').evaluate((element: HTMLImageElement) => element.complete && element.naturalWidth)).toBeGreaterThan(0)
  const box = (await image.boundingBox())!
  await image.click({ position: { x: box.width * 0.25, y: box.height * 0.75 } })
  await expect(editor.getByLabel('Focal point across (%)')).toHaveValue('25')
  await expect(editor.getByLabel('Focal point down (%)')).toHaveValue('75')
  await editor.getByRole('button', { name: 'Save image details' }).click()
  await expect(editor.getByTestId('media-save-status')).toHaveText('Saved. This is now version 2.')
  await expect(editor.getByTestId('media-badges')).toHaveCount(0)
  const saved = await mediaRow(harbour.name)
  expect(saved.alt_text).toBe('Fishing boats tied up at the harbour wall at dawn.')
  expect(saved.focal_x).toBeCloseTo(0.25, 1)
  expect(saved.focal_y).toBeCloseTo(0.75, 1)

  // A second photo by drag and drop, left without alt text; search finds each by name.
  await dropFile(page, crowd)
  await expect(page.getByTestId('media-upload').filter({ hasText: crowd.name }).getByRole('status')).toHaveText('Uploaded. Add its alt text below.')
  await page.getByLabel('Search', { exact: true }).fill(`crowd-${tag}`)
  await page.getByRole('button', { name: 'Search', exact: true }).click()
  await expect(page.getByTestId('media-tile')).toHaveCount(1)
  await expect(page.getByTestId('media-tile')).toContainText('No alt text')
  await page.getByLabel('Search', { exact: true }).fill(tag)
  await page.getByRole('button', { name: 'Search', exact: true }).click()
  await expect(page.getByTestId('media-tile')).toHaveCount(2)
  await page.getByRole('button', { name: `Edit ${harbour.name}` }).click()
  await expect(editor.getByRole('heading', { name: harbour.name })).toBeVisible()
  await expectNoHorizontalScroll(page)
  for (const img of await page.locator('main img').all()) await expect.poll(() => img.evaluate((element: HTMLImageElement) => element.complete && element.naturalWidth)).toBeGreaterThan(0)
  await page.screenshot({ path: 'docs/screenshots/media-library.png', fullPage: true })

  // The story: the harbour photo as its featured image, the crowd photo in the body.
  const headline = `Harbour reopens ${tag}`
  await page.goto('/articles/new')
  await page.getByLabel('Headline').fill(headline)
  await page.getByRole('textbox', { name: 'Body' }).click()
  await page.keyboard.type('The quay reopened at dawn.')
  await page.getByRole('button', { name: 'Choose featured image' }).click()
  const picker = page.getByRole('dialog', { name: 'Choose the featured image' })
  await picker.getByLabel('Search the library').fill(`harbour-${tag}`)
  await picker.getByLabel('Search the library').press('Enter')
  await expect(picker.getByRole('button', { name: /^Choose / })).toHaveCount(1)
  await picker.getByRole('button', { name: `Choose ${harbour.name}` }).click()
  await page.screenshot({ path: 'docs/screenshots/media-picker.png' })
  await picker.getByRole('button', { name: 'Use as featured image' }).click()
  await expect(picker).toBeHidden()
  await expect(page.getByTestId('featured-alt')).toHaveText('Alt text: Fishing boats tied up at the harbour wall at dawn.')

  await page.getByRole('button', { name: 'Insert image' }).click()
  const inserter = page.getByRole('dialog', { name: 'Insert an image from the library' })
  await inserter.getByLabel('Search the library').fill(`crowd-${tag}`)
  await inserter.getByRole('button', { name: 'Search' }).click()
  await inserter.getByRole('button', { name: `Choose ${crowd.name}` }).click()
  await inserter.getByRole('button', { name: 'Insert image', exact: true }).click()
  // No alt text: asked for it before the image goes in.
  const prompt = inserter.getByTestId('alt-text-prompt')
  await expect(prompt).toContainText(`${crowd.name} has no alt text.`)
  await page.screenshot({ path: 'docs/screenshots/media-alt-text-prompt.png' })
  await prompt.getByLabel('Alt text for this image').fill('A crowd cheers as the first boat leaves.')
  await prompt.getByRole('button', { name: 'Save alt text and insert image' }).click()
  await expect(inserter).toBeHidden()
  const crowdRow = await mediaRow(crowd.name)
  expect(crowdRow.alt_text).toBe('A crowd cheers as the first boat leaves.')
  await expect(page.getByTestId('body-figure')).toHaveAttribute('data-media-id', crowdRow.id)

  await page.getByRole('button', { name: 'Create draft' }).click()
  await expect(page.getByRole('heading', { level: 1, name: headline })).toBeVisible()
  const articleId = articleIdOf(page)
  const [stored] = await queryE2eDatabase<{ featured_media_id: string | null; body: string | null }>('SELECT featured_media_id, body FROM articles WHERE id = $1', [articleId])
  expect(stored?.featured_media_id).toBe(saved.id)
  expect(stored?.body).toContain(`<figure data-media-id="${crowdRow.id}">`)
  // The editor shows both again after a reload (the body keeps its figure).
  await page.reload()
  await expect(page.getByTestId('featured-alt')).toContainText('Fishing boats')
  await expect(page.getByTestId('body-figure')).toHaveAttribute('data-media-id', crowdRow.id)

  for (const [button, said] of [
    ['Submit for review', 'Moved to in review.'],
    ['Approve', 'Moved to approved.'],
    ['Publish now', 'Published.'],
  ] as const) {
    await page.getByRole('button', { name: button, exact: true }).click()
    await expect(page.getByTestId('workflow-status')).toContainText(said)
  }

  // The library says where each image is used.
  await page.goto(`/media?media=${saved.id}`)
  await expect(page.getByTestId('media-uses').getByRole('link', { name: headline })).toBeVisible()

  // The site reads the story through the content API and loads a rendition of its picture.
  const key = await createE2eContentKey('daily-planet')
  const published = await request.get(`/content/v1/articles/${articleId}?key=${key}`)
  expect(published.status()).toBe(200)
  const article = (await published.json()) as { headline: string; featured_media_id?: string | null; images?: { url: string }[]; body?: string }
  expect(article.headline).toBe(headline)
  let renditionUrl = article.images?.[0]?.url
  if (!renditionUrl) {
    // The content API does not give images yet (being added): the record's signed rendition URLs are the same ones.
    const token = await createE2eApiToken('daily-planet', seedUsers.editor.email, ['media:read'])
    const record = (await (await request.get(`/v1/media/${saved.id}`, { headers: { Authorization: `Bearer ${token}` } })).json()) as { urls: { renditions: { url: string; width: number }[] } }
    renditionUrl = record.urls.renditions.find((rendition) => rendition.width === 640)?.url
  }
  expect(renditionUrl).toBeTruthy()
  const rendition = await request.get(renditionUrl!, { headers: { Accept: 'image/webp,image/*' } })
  expect(rendition.status()).toBe(200)
  expect(rendition.headers()['content-type']).toMatch(/^image\//)
  expect((await rendition.body()).length).toBeGreaterThan(1000)

  // Deleting an image a published story shows is refused, naming the story.
  await page.getByTestId('media-editor').getByRole('button', { name: 'Delete image' }).click()
  const confirm = page.getByRole('dialog', { name: `Delete ${harbour.name}?` })
  await expect(confirm).toContainText(headline)
  await confirm.getByRole('button', { name: 'Delete image' }).click()
  await expect(confirm.getByRole('alert')).toContainText(`Published articles show this image: ${articleId}.`)
  await confirm.getByRole('button', { name: 'Cancel' }).click()
  expect((await queryE2eDatabase('SELECT 1 FROM media WHERE id = $1', [saved.id])).length).toBe(1)
  await context.close()
})

test('a writer edits and deletes their own images only; an editor may delete theirs; 390 px works', async ({ browser }) => {
  const tag = unique()
  const editorsPhoto = { name: `editors-${tag}.jpg`, mimeType: 'image/jpeg', buffer: await photo(640, 480, 23) }
  const writersPhoto = { name: `writers-${tag}.jpg`, mimeType: 'image/jpeg', buffer: await photo(640, 480, 29) }

  const editorContext = await signedInContext(browser, 'editor')
  const editor = await editorContext.newPage()
  await editor.goto('/media')
  await editor.getByLabel('Choose images to upload').setInputFiles(editorsPhoto)
  await expect(editor.getByTestId('media-upload').getByRole('status')).toHaveText('Uploaded. Add its alt text below.')
  const editorsRow = await mediaRow(editorsPhoto.name)

  // The writer, on a phone: their own upload they may change and delete.
  const writerContext = await signedInContext(browser, 'writer', { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true })
  const writer = await writerContext.newPage()
  await writer.goto('/media')
  await writer.getByLabel('Choose images to upload').setInputFiles(writersPhoto)
  await expect(writer.getByTestId('media-upload').getByRole('status')).toHaveText('Uploaded. Add its alt text below.')
  const panel = writer.getByTestId('media-editor')
  await panel.getByLabel('Alt text').fill('A test card.')
  await panel.getByRole('button', { name: 'Save image details' }).click()
  await expect(panel.getByTestId('media-save-status')).toHaveText('Saved. This is now version 2.')
  await expectNoHorizontalScroll(writer)
  await expect.poll(() => panel.getByTestId('focal-point-image').locator('img').evaluate((element: HTMLImageElement) => element.complete && element.naturalWidth)).toBeGreaterThan(0)
  await writer.screenshot({ path: 'docs/screenshots/media-library-390.png', fullPage: true })

  // The editor's image: read only for the writer, with the reason, and no Delete.
  await writer.goto(`/media?media=${editorsRow.id}`)
  await expect(panel.getByRole('heading', { name: editorsPhoto.name })).toBeVisible()
  await expect(panel).toContainText('A writer can change only the images they uploaded; ask an editor to change this one.')
  await expect(panel.getByRole('button', { name: 'Delete image' })).toHaveCount(0)
  await expect(panel.getByRole('button', { name: 'Save image details' })).toHaveCount(0)
  // Going around the page is refused by the same rule.
  const refused = await writer.request.post('/api/trpc/media.delete', {
    headers: { 'content-type': 'application/json', 'x-newsroom-portal': '1' },
    data: { media_id: editorsRow.id, version: 1 },
  })
  expect(refused.status()).toBe(403)
  expect(((await refused.json()) as { error: { message: string } }).error.message).toBe('A writer can delete only the images they uploaded; ask an editor to delete this one.')
  expect((await queryE2eDatabase('SELECT 1 FROM media WHERE id = $1', [editorsRow.id])).length).toBe(1)

  // Their own they delete, after an app dialog.
  const writersRow = await mediaRow(writersPhoto.name)
  await writer.goto(`/media?media=${writersRow.id}`)
  await panel.getByRole('button', { name: 'Delete image' }).click()
  const confirm = writer.getByRole('dialog', { name: `Delete ${writersPhoto.name}?` })
  await confirm.getByRole('button', { name: 'Delete image' }).click()
  await expect(confirm).toBeHidden()
  await expect(panel).toHaveCount(0)
  expect((await queryE2eDatabase('SELECT 1 FROM media WHERE id = $1', [writersRow.id])).length).toBe(0)

  // The editor may delete what the writer could not.
  await editor.goto(`/media?media=${editorsRow.id}`)
  await editor.getByTestId('media-editor').getByRole('button', { name: 'Delete image' }).click()
  await editor.getByRole('dialog', { name: `Delete ${editorsPhoto.name}?` }).getByRole('button', { name: 'Delete image' }).click()
  await expect(editor.getByTestId('media-editor')).toHaveCount(0)
  expect((await queryE2eDatabase('SELECT 1 FROM media WHERE id = $1', [editorsRow.id])).length).toBe(0)
  await writerContext.close()
  await editorContext.close()
})

test('a file that is not an image is refused with the server’s reason, and nothing is stored', async ({ browser }) => {
  const context = await signedInContext(browser, 'writer')
  const page = await context.newPage()
  await page.goto('/media')
  const name = `notes-${unique()}.jpg`
  await page.getByLabel('Choose images to upload').setInputFiles({ name, mimeType: 'image/jpeg', buffer: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>') })
  const refused = page.getByTestId('media-upload').filter({ hasText: name })
  await expect(refused.getByRole('alert')).toContainText('Not an image type the library keeps. The file is not a JPEG, PNG, WebP, AVIF or GIF image (SVG is refused: it can carry script).')
  expect((await queryE2eDatabase('SELECT 1 FROM media WHERE filename = $1', [name])).length).toBe(0)
  await context.close()
})
