import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { checkImage, readEmbeddedMetadata } from './inspect-image.ts'
import { renderImage } from './render-rendition.ts'
import { loadSharp } from './sharp.ts'

const dir = mkdtempSync(path.join(os.tmpdir(), 'newsroom-sharp-test-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('images read from files are let go once read', () => {
  // An upload is read from a temporary file that is removed right after; libvips maps its
  // inputs into memory, and an operation cache would keep the mapping (the file resident in
  // the process and, deleted, still on disk) until later files pushed it out.
  it.runIf(existsSync('/proc/self/maps'))('no mapping of an upload\'s temporary file outlives its removal', async () => {
    const sharp = await loadSharp()
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

describe('libvips is loaded by the first image, not at start', () => {
  // ~19 MB of an instance's resident memory that an instance serving only the API never uses.
  it.runIf(existsSync('/proc/self/maps'))('importing the media modules maps no libvips until an image is read', () => {
    const script = `
      const { readFileSync } = await import('node:fs')
      const mapped = () => readFileSync('/proc/self/maps', 'utf8').includes('libvips')
      await import('./lib/media/inspect-image.ts')
      await import('./lib/media/render-rendition.ts')
      const before = mapped()
      const { loadSharp } = await import('./lib/media/sharp.ts')
      await loadSharp()
      console.log(JSON.stringify({ before, after: mapped() }))`
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: path.resolve(import.meta.dirname, '../..'), encoding: 'utf8' })
    expect(JSON.parse(out.trim().split('\n').at(-1)!)).toEqual({ before: false, after: true })
  })
})
