import { existsSync, rmSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { storeFromEnv } from '../../lib/media/storage/media-storage.ts'
import { renditionUrls } from '../../lib/media/renditions.ts'
import { ServiceUnavailableError } from '../../lib/errors.ts'

// Defects found by break47e (issue 47): storage and signing settings (docs/media.md, "Storage
// settings") left empty in an env file (`MEDIA_DIR=`, `MEDIA_URL_SECRET=`) must mean their
// documented defaults, as `MEDIA_S3_ENDPOINT=` already does.
describe('media settings left empty: break47e', () => {
  it('MEDIA_DIR left empty keeps files under the documented .data/media, not loose in the working directory (the deployed app, replaced by the next deploy)', async () => {
    const key = `renditions/break47e-probe-${process.pid}/0000/w320.jpg`
    const loose = path.resolve('renditions', `break47e-probe-${process.pid}`)
    const kept = path.resolve('.data/media', key)
    try {
      await storeFromEnv({ MEDIA_DIR: '' }).putBuffer(key, Buffer.from('probe'), 'image/jpeg')
      expect(existsSync(kept), `expected ${kept}`).toBe(true)
      expect(existsSync(loose), `found ${loose}`).toBe(false)
    } finally {
      rmSync(loose, { recursive: true, force: true })
      rmSync(path.dirname(path.dirname(kept)), { recursive: true, force: true })
    }
  })

  it('MEDIA_URL_SECRET left empty signs with NEXTAUTH_SECRET, as documented, not with an empty (public) key', () => {
    const media = { id: 'med_0mhx2k1s9q3v8w4t6y1z2a3b4c', sha256: 'ab'.repeat(32), width: 2000, height: 1000, focalX: 0.5, focalY: 0.5 }
    vi.stubEnv('NEXTAUTH_SECRET', 'break47e-secret')
    try {
      vi.stubEnv('MEDIA_URL_SECRET', undefined)
      const documented = renditionUrls(media).map((link) => link.url)
      vi.stubEnv('MEDIA_URL_SECRET', '')
      expect(renditionUrls(media).map((link) => link.url)).toEqual(documented)
    } finally {
      vi.unstubAllEnvs()
    }
  })

  it('MEDIA_S3_REGION and MEDIA_S3_ACCESS_KEY_ID/SECRET left empty mean us-east-1 and the AWS_* credentials: a store that is down is a 503 naming the media store, not a configuration error (500)', async () => {
    const store = storeFromEnv({
      MEDIA_S3_ENDPOINT: 'http://127.0.0.1:9',
      MEDIA_S3_BUCKET: 'break47e',
      MEDIA_S3_REGION: '',
      MEDIA_S3_ACCESS_KEY_ID: '',
      MEDIA_S3_SECRET_ACCESS_KEY: '',
      AWS_ACCESS_KEY_ID: 'break47e',
      AWS_SECRET_ACCESS_KEY: 'break47e-secret',
      MEDIA_S3_TIMEOUT_MS: '1000',
    })
    const failure = await store.get('originals/x/0000').then(() => null, (error: unknown) => error)
    expect(failure).toBeInstanceOf(ServiceUnavailableError)
  }, 20_000)
})
