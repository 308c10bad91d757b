import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { checkImage, readEmbeddedMetadata } from './inspect-image.ts'
import { renderImage } from './render-rendition.ts'
import sharp from './sharp.ts'

const dir = mkdtempSync(path.join(os.tmpdir(), 'newsroom-sharp-test-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('images read from files are let go once read', () => {
  // An upload is read from a temporary file that is removed right after; libvips maps its
  // inputs into memory, and an operation cache would keep the mapping (the file resident in
  // the process and, deleted, still on disk) until later files pushed it out.
  it.runIf(existsSync('/proc/self/maps'))('no mapping of an upload\'s temporary file outlives its removal', async () => {
    const files: string[] = []
    for (let i = 0; i < 3; i++) {
      const file = path.join(dir, `upload-${i}.jpg`)
      writeFileSync(file, await sharp({ create: { width: 1600, height: 1000, channels: 3, background: { r: 40 * i, g: 90, b: 160 } } }).jpeg({ quality: 90 }).toBuffer())
      expect(await checkImage(file, 100_000_000)).toEqual({ width: 1600, height: 1000 })
      await readEmbeddedMetadata(file)
      expect((await renderImage(file, { width: 1600, height: 1000 }, { x: 0.5, y: 0.5 }, { width: 640, crop: null }, 'jpeg')).length).toBeGreaterThan(0)
      rmSync(file)
      files.push(file)
    }
    const maps = readFileSync('/proc/self/maps', 'utf8')
    for (const file of files) expect(maps).not.toContain(file)
  })
})
