import { mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { mediaStore, resetMediaStore } from '../../lib/media/storage/media-storage.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { stubEnv } from '../support/stub-env.ts'
import { cameraJpeg, uploadForm } from '../support/media-images.ts'

// Defects found by break47d (issue 47): what a hostile client, an editor with two tabs or an
// operator meets. Each test failed on main as of ee0e0a2.
let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let token: string
let editor: ReturnType<typeof apiClient>

beforeAll(async () => {
  stubEnv({ MEDIA_DIR: mkdtempSync(path.join(os.tmpdir(), 'newsroom-media-47d-')), MEDIA_S3_ENDPOINT: '', MEDIA_S3_BUCKET: '', CONTENT_PURGE_URL: undefined })
  resetMediaStore()
  ;[server, newsroom] = await Promise.all([startApiServer(), createTestTenant()])
  token = await newsroom.token(['media:read', 'media:write', 'articles:read', 'articles:write'], 'editor')
  editor = apiClient(server.url, token)
}, 120_000)

afterAll(async () => {
  await server?.close()
  vi.unstubAllEnvs()
  resetMediaStore()
})

const upload = async (seed: number) => {
  const response = await fetch(`${server.url}/v1/media`, { method: 'POST', body: uploadForm(await cameraJpeg({ seed, width: 400, height: 300 }), 'boats.jpg', { alt_text: 'Boats' }), headers: { Authorization: `Bearer ${token}` } })
  expect(response.status).toBe(201)
  return (await response.json()) as { media_id: string }
}

describe('media library: break47d', () => {
  it.each(['0000-01-01T00:00:00Z', '9999-12-31T23:59:59-14:00', '0001-01-01T00:00:00+14:00'])('a date-time the schema accepts (%s) is stored or a 4xx, never a 500', async (instant) => {
    const media = await upload(4701 + instant.charCodeAt(3) + instant.length)
    for (const body of [{ taken_at: instant }, { rights: { expires_at: instant } }, { rights: { embargo_until: instant } }]) {
      const answer = await editor.patch(`/v1/media/${media.media_id}`, body)
      expect(answer.status, `${JSON.stringify(body)}: ${answer.text}`).toBeLessThan(500)
    }
    for (const filter of ['created_after', 'created_before', 'rights_expire_before']) {
      const answer = await editor.get(`/v1/media?${filter}=${encodeURIComponent(instant)}`)
      expect(answer.status, `${filter}: ${answer.text}`).toBeLessThan(500)
    }
  })

  it.each(['0000-01-01T00:00:00Z', '9999-12-31T23:59:59-14:00'])('the articles list filters take %s as a 4xx or an answer, never a 500', async (instant) => {
    for (const filter of ['published_after', 'updated_before']) {
      const answer = await editor.get(`/v1/articles?${filter}=${encodeURIComponent(instant)}`)
      expect(answer.status, `articles ${filter}: ${answer.text}`).toBeLessThan(500)
    }
  })

  it('the original of a photo whose file name is not Latin-1 (Łódź, 港口, as uploaded from a phone) comes back, not a 500', async () => {
    const bytes = await cameraJpeg({ seed: 4710, width: 300, height: 200 })
    const created = await fetch(`${server.url}/v1/media`, { method: 'POST', body: uploadForm(bytes, 'Łódź-港口.jpg', { alt_text: 'Harbour' }), headers: { Authorization: `Bearer ${token}` } })
    expect(created.status).toBe(201)
    const record = (await created.json()) as { media_id: string; filename: string }
    expect(record.filename).toBe('Łódź-港口.jpg')
    const original = await fetch(`${server.url}/v1/media/${record.media_id}/original`, { headers: { Authorization: `Bearer ${token}` } })
    const body = Buffer.from(await original.arrayBuffer())
    expect(original.status, body.toString('utf8').slice(0, 300)).toBe(200)
    expect(body.equals(bytes)).toBe(true)
    // The name as written, for the browser saving it (RFC 6266 filename*), and an ASCII fallback.
    expect(original.headers.get('content-disposition')).toContain(`filename*=UTF-8''${encodeURIComponent('Łódź-港口.jpg')}`)
  })

  it("a camera whose clock was never set (EXIF date '0000:00:00 00:00:00', blank fields) gives no date taken, not 30 November 1899; a valid date beside it is used", async () => {
    const photo = (seed: number, exif: Record<string, string>) =>
      sharp({ create: { width: 64, height: 48, channels: 3, background: { r: seed % 256, g: 40, b: 90 } } }).jpeg().withExif({ IFD2: exif }).toBuffer()
    const send = async (bytes: Buffer) => {
      const answer = await fetch(`${server.url}/v1/media`, { method: 'POST', body: uploadForm(bytes, 'unset-clock.jpg'), headers: { Authorization: `Bearer ${token}` } })
      expect(answer.status).toBe(201)
      return (await answer.json()) as { taken_at: string | null }
    }
    expect((await send(await photo(11, { DateTimeOriginal: '0000:00:00 00:00:00', DateTimeDigitized: '0000:00:00 00:00:00' }))).taken_at).toBeNull()
    expect((await send(await photo(12, { DateTimeOriginal: '    :  :     :  :  ' }))).taken_at).toBeNull()
    expect((await send(await photo(13, { DateTimeOriginal: '0000:00:00 00:00:00', DateTimeDigitized: '2026:11:28 09:15:00' }))).taken_at).toMatch(/^2026-11-2[78]T/)
  })

  it('a credit and copyright the camera wrote past the API\'s limits (300 characters) are kept within them, so the record read can be sent back', async () => {
    const long = 'Agence Photographique Internationale '.repeat(12).trim()
    const bytes = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 5, g: 99, b: 7 } } }).jpeg().withExif({ IFD0: { Artist: long, Copyright: long } }).toBuffer()
    const created = await fetch(`${server.url}/v1/media`, { method: 'POST', body: uploadForm(bytes, 'long-credit.jpg'), headers: { Authorization: `Bearer ${token}` } })
    expect(created.status).toBe(201)
    const record = (await created.json()) as { media_id: string; credit: string; copyright: string }
    const echoed = await editor.patch(`/v1/media/${record.media_id}`, { alt_text: 'A harbour', credit: record.credit, copyright: record.copyright })
    expect(echoed.status, echoed.text).toBe(200)
  })

  it.each(['deleted', 'put under embargo'])('a rendition already in the store, read just before its image was %s, is not served after the purge as immutable for a year', async (change) => {
    const image = await upload(4720 + change.length)
    const link = (image as unknown as { urls: { renditions: { url: string; crop: string | null }[] } }).urls.renditions.find((rendition) => rendition.crop === null)!
    const first = await fetch(`${server.url}${link.url}`, { headers: { Accept: 'image/jpeg' } })
    await first.arrayBuffer()
    expect(first.status).toBe(200)
    // The second request finds the rendition stored: its read is held, in process, once the store answered.
    const store = mediaStore()
    const realGet = store.get.bind(store)
    let held!: () => void
    let release!: () => void
    const reached = new Promise<void>((resolve) => (held = resolve))
    const gate = new Promise<void>((resolve) => (release = resolve))
    store.get = async (key) => {
      const answer = await realGet(key)
      if (key.startsWith('renditions/')) {
        held()
        await gate
      }
      return answer
    }
    try {
      const serving = fetch(`${server.url}${link.url}`, { headers: { Accept: 'image/jpeg' } })
      await reached
      const changed = change === 'deleted'
        ? await editor.delete(`/v1/media/${image.media_id}`)
        : await editor.patch(`/v1/media/${image.media_id}`, { rights: { embargo_until: new Date(Date.now() + 86_400_000).toISOString() } })
      expect(changed.status, changed.text).toBeLessThan(300)
      release()
      const served = await serving
      const cacheControl = served.headers.get('cache-control')
      await served.arrayBuffer().catch(() => undefined)
      expect(`${served.status} ${cacheControl}`, `an image ${change} served to the shared cache after its purge`).toMatch(/^404 /)
    } finally {
      release()
      store.get = realGet
    }
  })

  it('an Idempotency-Key reused for another photo is refused (422 idempotency_key_reused), not answered with the first photo\'s record while the second is dropped', async () => {
    const key = `batch-${Date.now()}`
    const send = async (seed: number) => {
      const bytes = await cameraJpeg({ seed, width: 320, height: 240 })
      const answer = await fetch(`${server.url}/v1/media`, { method: 'POST', body: uploadForm(bytes, `photo-${seed}.jpg`, { alt_text: `Photo ${seed}` }), headers: { Authorization: `Bearer ${token}`, 'Idempotency-Key': key } })
      return { status: answer.status, body: (await answer.json()) as { media_id: string; sha256: string; code?: string } }
    }
    const first = await send(4730)
    expect(first.status).toBe(201)
    const again = await send(4730)
    expect(again.body.media_id, 'the same upload retried is answered as the first').toBe(first.body.media_id)
    const other = await send(4731)
    expect(`${other.status} ${other.body.code ?? other.body.media_id}`, 'another photo under the same key').toBe('422 idempotency_key_reused')
  })

  it.each(['med_%00', `med_${'x'.repeat(5000)}`, 'med_%C0', '%E2%80%AE'])('a public rendition URL with a hostile media id (%#) is a 404, never a 500', async (id) => {
    const answer = await fetch(`${server.url}/content/v1/media/${id}/0123456789abcdef-f500_500-w320/AAAAAAAAAAAAAAAAAAAAAA`)
    const text = await answer.text()
    expect(answer.status, text.slice(0, 300)).toBe(404)
  })

  it('a rendition of an image whose licence ends in an hour is not offered to every cache for a year (only our own purge reaches the shared cache; a CDN or a browser keeps it)', async () => {
    const bytes = await cameraJpeg({ seed: 4740, width: 400, height: 300 })
    const endsAt = new Date(Date.now() + 3_600_000)
    const created = await fetch(`${server.url}/v1/media`, { method: 'POST', body: uploadForm(bytes, 'licensed.jpg', { alt_text: 'Boats', expires_at: endsAt.toISOString() }), headers: { Authorization: `Bearer ${token}` } })
    expect(created.status).toBe(201)
    const record = (await created.json()) as { urls: { renditions: { url: string; crop: string | null }[] } }
    const served = await fetch(`${server.url}${record.urls.renditions[0]!.url}`, { headers: { Accept: 'image/jpeg' } })
    await served.arrayBuffer()
    expect(served.status).toBe(200)
    const cacheControl = served.headers.get('cache-control') ?? ''
    const maxAge = Number(/max-age=(\d+)/.exec(cacheControl)?.[1])
    expect(maxAge, cacheControl).toBeLessThanOrEqual(3_600)
    expect(cacheControl).not.toContain('immutable')
  })
})
