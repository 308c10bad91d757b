import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import exifr from 'exifr'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiClient } from '../support/api-client.ts'
import { startMigratedEmbeddedDatabase } from '../support/embedded-database.ts'
import { cameraJpeg, uploadForm } from '../support/media-images.ts'
import { spawnApiServer, type SpawnedApiServer } from '../support/spawn-api-server.ts'
import { setupBackstopMs } from '../support/time-limits.ts'

// What `npm run dev` promises of the media library, on the embedded store (PGlite, as dev runs
// it) with the disk media store under a data directory: an upload and its duplicate, a rendition
// with no metadata, and the publish refusal for an image without alt text. The same behaviours on
// PostgreSQL and on both media stores: media-library-suite.ts.

let database: Awaited<ReturnType<typeof startMigratedEmbeddedDatabase>>
let server: SpawnedApiServer
let client: ReturnType<typeof apiClient>
const mediaDir = mkdtempSync(path.join(os.tmpdir(), 'newsroom-media-embedded-'))

beforeAll(async () => {
  database = await startMigratedEmbeddedDatabase()
  server = await spawnApiServer(database.url, { tenant: true, timeoutMs: 60_000, env: { MEDIA_DIR: mediaDir, MEDIA_S3_ENDPOINT: '', MEDIA_S3_BUCKET: '' } })
  client = apiClient(server.url, server.tenant!.token)
}, setupBackstopMs)

afterAll(async () => {
  await server?.stop()
  await database?.stop()
  rmSync(mediaDir, { recursive: true, force: true })
})

const upload = async (bytes: Buffer, filename: string, fields: Record<string, string> = {}) => {
  const response = await fetch(`${server.url}/v1/media`, { method: 'POST', body: uploadForm(bytes, filename, fields), headers: { Authorization: `Bearer ${server.tenant!.token}` } })
  const text = await response.text()
  return { status: response.status, text, body: JSON.parse(text) }
}

describe('the media library on the embedded store', () => {
  it('uploads to the data directory, answers a duplicate with the record, and serves a rendition without metadata', async () => {
    const bytes = await cameraJpeg({ seed: 201 })
    const first = await upload(bytes, 'harbour.jpg')
    expect(first.status, first.text).toBe(201)
    expect(first.body).toMatchObject({ filename: 'harbour.jpg', width: 2000, height: 1200, caption: 'Boats return to the harbour', copyright: 'Harbour Press' })
    // The original is a file under MEDIA_DIR, as dev keeps it.
    expect(readdirSync(mediaDir, { recursive: true }).map(String).some((entry) => entry.endsWith(`${first.body.sha256}-${first.body.media_id}`))).toBe(true)
    const again = await upload(bytes, 'copy.jpg')
    expect(again.status, again.text).toBe(200)
    expect(again.body.media_id).toBe(first.body.media_id)
    expect((await client.get('/v1/media?limit=10')).body.total).toBe(1)

    const link = first.body.urls.renditions.find((r: { width: number; crop: string | null }) => r.width === 640 && r.crop === null)
    const rendition = await fetch(`${server.url}${link.url}`, { headers: { Accept: 'image/webp' } })
    expect(rendition.status).toBe(200)
    expect(rendition.headers.get('content-type')).toBe('image/webp')
    const image = Buffer.from(await rendition.arrayBuffer())
    expect(await sharp(image).metadata()).toMatchObject({ width: 640, height: 384, format: 'webp' })
    expect(await exifr.parse(image, { gps: true, tiff: true, exif: true }).catch(() => undefined)).toBeFalsy()
  })

  it('refuses to publish an article whose image has no alt text (422 media_not_publishable), and publishes it once it has', async () => {
    const media = (await upload(await cameraJpeg({ seed: 202 }), 'lead.jpg')).body
    const article = await client.post('/v1/articles', { headline: 'Harbour reopens', featured_media_id: media.media_id })
    expect(article.status, article.text).toBe(201)
    const id = article.body.article_id
    for (const to_state of ['in-review', 'approved']) expect((await client.post(`/v1/articles/${id}/transitions`, { to_state })).status).toBe(200)
    const refused = await client.post(`/v1/articles/${id}/transitions`, { to_state: 'published' })
    expect(refused.status, refused.text).toBe(422)
    expect(refused.body).toMatchObject({ code: 'media_not_publishable', media: [{ media_id: media.media_id, missing: ['alt_text_missing'] }] })
    expect(refused.body.detail).toContain('lead.jpg')
    expect((await client.get(`/v1/articles/${id}`)).body.status).toBe('approved')

    expect((await client.patch(`/v1/media/${media.media_id}`, { alt_text: 'Boats in the harbour' })).status).toBe(200)
    const published = await client.post(`/v1/articles/${id}/transitions`, { to_state: 'published' })
    expect(published.status, published.text).toBe(200)
    expect((await client.get(`/v1/media/${media.media_id}`)).body.used_by).toEqual([id])
  })
})
