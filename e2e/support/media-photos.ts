import { expect, type Page } from '@playwright/test'
import sharp from 'sharp'
import { queryE2eDatabase } from './e2e-database.ts'

/**
 * A photo-like JPEG of noise, different on every call (the seed is mixed with the clock): noise does
 * not compress away, so uploads take long enough to watch, and the library never finds two
 * journeys' photos to be the same bytes.
 */
export async function noisePhoto(width: number, height: number, seed: number): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 3)
  let state = (seed * 7919 + Date.now()) & 0x7fffffff
  for (let index = 0; index < pixels.length; index++) {
    state = (state * 1103515245 + 12345) & 0x7fffffff
    pixels[index] = (state >> 16) & 0xff
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } }).jpeg({ quality: 80 }).toBuffer()
}

/** Uploads a 320×240 photo named `name` from the Media page, as an editor does, and returns its media id. */
export async function uploadFromMediaPage(page: Page, name: string, seed: number): Promise<string> {
  await page.goto('/media')
  await page.getByLabel('Choose images to upload').setInputFiles({ name, mimeType: 'image/jpeg', buffer: await noisePhoto(320, 240, seed) })
  await expect(page.getByTestId('media-upload').filter({ hasText: name }).getByRole('status')).toHaveText('Uploaded. Add its alt text below.')
  const [row] = await queryE2eDatabase<{ id: string }>('SELECT id FROM media WHERE filename = $1 ORDER BY created_at DESC LIMIT 1', [name])
  return row!.id
}
