import { expect, test } from '@playwright/test'
import sharp from 'sharp'
import { queryE2eDatabase } from './support/e2e-database.ts'
import { signedInContext } from './support/portal-session.ts'

// A phone on a flaky connection: the whole photo reached the server, which kept it and sent its
// answer, and the connection dropped before that answer reached the phone. The server saw its
// answer go out (nothing told it otherwise), so the image is kept. The page must not then tell
// the editor "Nothing was stored".

const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`

async function photo(seed: number): Promise<Buffer> {
  const width = 480
  const height = 320
  const pixels = Buffer.alloc(width * height * 3)
  let state = (seed * 7919 + Date.now()) & 0x7fffffff
  for (let index = 0; index < pixels.length; index++) {
    state = (state * 1103515245 + 12345) & 0x7fffffff
    pixels[index] = (state >> 16) & 0xff
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } }).jpeg({ quality: 80 }).toBuffer()
}

test('the answer to an upload lost on the way back: the page does not say nothing was stored when the image was kept', async ({ browser }) => {
  const name = `lost-answer-${unique()}.jpg`
  const context = await signedInContext(browser, 'writer')
  const page = await context.newPage()
  await page.goto('/media')
  // The request reaches the server whole and is answered; the answer is lost on the way back.
  await page.route('**/api/media', async (route) => {
    if (route.request().method() !== 'POST') return route.continue()
    await route.fetch()
    await route.abort('connectionreset')
  })
  await page.getByLabel('Choose images to upload').setInputFiles({ name, mimeType: 'image/jpeg', buffer: await photo(91) })
  const row = page.getByTestId('media-upload').filter({ hasText: name })
  await expect(row).toHaveAttribute('data-state', 'failed')
  const said = (await row.getByRole('alert').textContent()) ?? ''
  const kept = await queryE2eDatabase('SELECT 1 FROM media WHERE filename = $1', [name])
  expect(kept.length === 0 || !/Nothing was stored/i.test(said), `the page said "${said}" and the image is in the library`).toBe(true)
  await context.close()
})
