import { createServer, request as httpRequest, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { existsSync, mkdtempSync, readdirSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { resetMediaStore } from '../../lib/media/storage/media-storage.ts'
import { createContentKey } from '../../lib/content/content-keys.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { stubEnv } from '../support/stub-env.ts'
import { cameraJpeg, uploadForm } from '../support/media-images.ts'

// Defects found by sending what a hostile client or a hurried integrator sends (issue 47, break47).
// Each test fails on main as of c52e827 and names what a user sees.
let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let other: TestTenant
let token: string
let writer: ReturnType<typeof apiClient>
let wire: Server
let wireUrl: string
const wireFiles = new Map<string, (res: import('node:http').ServerResponse) => void>()

const upload = async (form: FormData, headers: Record<string, string> = {}) => {
  const response = await fetch(`${server.url}/v1/media`, { method: 'POST', body: form, headers: { Authorization: `Bearer ${token}`, ...headers } })
  const text = await response.text()
  let body: any
  try { body = JSON.parse(text) } catch { body = undefined }
  return { status: response.status, headers: response.headers, text, body }
}

const raw = (method: string, p: string, headers: Record<string, string | number>, chunks: (string | Buffer)[], chunked = false) =>
  new Promise<{ status: number; text: string; headers: Record<string, unknown> }>((resolve, reject) => {
    const { port } = new URL(server.url)
    const req = httpRequest({ host: '127.0.0.1', port, method, path: p, headers: { Authorization: `Bearer ${token}`, ...headers } }, (res) => {
      let text = ''
      res.on('data', (c) => (text += c))
      res.on('end', () => resolve({ status: res.statusCode!, text, headers: res.headers }))
    })
    req.on('error', reject)
    if (chunked) req.setHeader('Transfer-Encoding', 'chunked')
    for (const chunk of chunks) req.write(chunk)
    req.end()
  })

beforeAll(async () => {
  stubEnv({ MEDIA_DIR: mkdtempSync(path.join(os.tmpdir(), 'newsroom-media-probe-')), MEDIA_S3_ENDPOINT: '', MEDIA_S3_BUCKET: '', WEBHOOK_ALLOW_PRIVATE_URLS: 'true', CONTENT_PURGE_URL: undefined })
  resetMediaStore()
  ;[server, newsroom, other] = await Promise.all([startApiServer(), createTestTenant(), createTestTenant()])
  token = await newsroom.token(['media:read', 'media:write', 'articles:read', 'articles:write'], 'editor')
  writer = apiClient(server.url, token)
  wire = createServer((req, res) => {
    const serve = wireFiles.get(req.url ?? '')
    if (!serve) return void res.writeHead(404).end()
    serve(res)
  })
  await new Promise<void>((resolve) => wire.listen(0, '127.0.0.1', resolve))
  wireUrl = `http://127.0.0.1:${(wire.address() as AddressInfo).port}`
}, 120_000)

afterAll(async () => {
  wire?.closeAllConnections()
  await Promise.all([server?.close(), wire && new Promise((resolve) => wire.close(resolve))])
  vi.unstubAllEnvs()
  resetMediaStore()
})

describe('media library: what a hostile client or hurried integrator sends', () => {
  it('a wire server whose redirect Location cannot be parsed is a 422 naming why, not a 500', async () => {
    wireFiles.set('/redir-bad.jpg', (res) => res.writeHead(302, { Location: 'http://[::1' }).end())
    const answer = await writer.post('/v1/media', { source_url: `${wireUrl}/redir-bad.jpg` })
    expect(answer.status, answer.text).toBe(422)
    expect(answer.body.code).toBe('source_url_refused')
  })

  it('a source_url whose last segment is not valid percent-encoding is stored (or a 4xx), not a 500', async () => {
    const bytes = await cameraJpeg({ seed: 501 })
    wireFiles.set('/wire/photo%E0%A4%A.jpg', (res) => res.writeHead(200, { 'Content-Type': 'image/jpeg' }).end(bytes))
    const answer = await writer.post('/v1/media', { source_url: `${wireUrl}/wire/photo%E0%A4%A.jpg` })
    expect(answer.status, answer.text).toBeLessThan(500)
  })

  it('a UTF-8 filename, as browsers send it in multipart, is kept as written (not read as Latin-1)', async () => {
    const answer = await upload(uploadForm(await cameraJpeg({ seed: 520 }), 'Café über 港.jpg'))
    expect(answer.status, answer.text).toBe(201)
    expect(answer.body.filename).toBe('Café über 港.jpg')
  })

  it('a caption of 1,500 CJK characters (the schema allows 2,000) is kept whole, not cut at 4,096 bytes with U+FFFD', async () => {
    const caption = '港'.repeat(1500)
    const answer = await upload(uploadForm(await cameraJpeg({ seed: 504 }), 'cjk.jpg', { caption }))
    expect(answer.status, answer.text).toBe(201)
    expect(answer.body.caption).not.toContain('\uFFFD')
    expect(answer.body.caption).toBe(caption)
  })

  it('a second `file` part is refused (422), not silently dropped', async () => {
    const form = new FormData()
    form.append('file', new Blob([new Uint8Array(await cameraJpeg({ seed: 502 }))], { type: 'image/jpeg' }), 'a.jpg')
    form.append('file', new Blob([new Uint8Array(await cameraJpeg({ seed: 503 }))], { type: 'image/jpeg' }), 'b.jpg')
    const answer = await upload(form)
    expect(answer.status, answer.text).toBe(422)
  })

  it('a transparent PNG’s JPEG rendition does not turn the transparent area black', async () => {
    const png = await sharp({ create: { width: 800, height: 400, channels: 4, background: { r: 255, g: 255, b: 255, alpha: 0 } } })
      .composite([{ input: { create: { width: 200, height: 200, channels: 4, background: { r: 200, g: 0, b: 0, alpha: 1 } } }, left: 300, top: 100 }])
      .png()
      .toBuffer()
    const answer = await upload(uploadForm(png, 'logo.png', { alt_text: 'logo' }, 'image/png'))
    expect(answer.status, answer.text).toBe(201)
    const url = answer.body.urls.renditions.find((r: { crop: string | null }) => r.crop === null).url
    const jpeg = Buffer.from(await (await fetch(server.url + url, { headers: { Accept: 'image/jpeg' } })).arrayBuffer())
    const { data } = await sharp(jpeg).extract({ left: 0, top: 0, width: 10, height: 10 }).raw().toBuffer({ resolveWithObject: true })
    expect(data[0]! + data[1]! + data[2]!).toBeGreaterThan(600)
  })

  it('a crop rendition is served at the size the record advertises (srcset width descriptors must not lie)', async () => {
    const answer = await upload(uploadForm(await cameraJpeg({ seed: 509 }), 'crop.jpg', { alt_text: 'c' }))
    for (const link of answer.body.urls.renditions.filter((r: { crop: string | null }) => r.crop === '1x1')) {
      const served = await sharp(Buffer.from(await (await fetch(server.url + link.url)).arrayBuffer())).metadata()
      expect([served.width, served.height], link.url).toEqual([link.width, link.height])
    }
  })

  it('Accept that refuses AVIF (q=0) is not served AVIF', async () => {
    const answer = await upload(uploadForm(await cameraJpeg({ seed: 506 }), 'q.jpg', { alt_text: 'q' }))
    const url = answer.body.urls.renditions.find((r: { crop: string | null; width: number }) => r.crop === null && r.width === 320).url
    const response = await fetch(server.url + url, { headers: { Accept: 'image/avif;q=0, image/webp, */*' } })
    expect(response.headers.get('content-type')).toBe('image/webp')
  })

  it('a body figure naming another newsroom’s image is refused as a featured one is (422)', async () => {
    const theirs = await fetch(`${server.url}/v1/media`, { method: 'POST', body: uploadForm(await cameraJpeg({ seed: 510 }), 'x.jpg', { alt_text: 'x' }), headers: { Authorization: `Bearer ${await other.token(['admin'])}` } })
    const foreign = await theirs.json()
    const featured = await writer.post('/v1/articles', { headline: 'Foreign featured', featured_media_id: foreign.media_id })
    expect(featured.status).toBe(422)
    const inBody = await writer.post('/v1/articles', { headline: 'Foreign figure', body: `<p>t</p><figure data-media-id="${foreign.media_id}"></figure>` })
    expect(inBody.status, inBody.text).toBe(422)
  })

  it('a malformed multipart body is not reported as malformed JSON', async () => {
    const answer = await raw('POST', '/v1/media', { 'Content-Type': 'multipart/form-data; boundary=xyz' }, ['--xyz\r\nthis is not a header\r\n\r\nxx'])
    expect(answer.status).toBe(400)
    expect(JSON.parse(answer.text).title).not.toMatch(/JSON/)
  })

  it('editing a live article to add an image without alt text or under embargo is refused (422 media_not_publishable), as publishing is', async () => {
    const good = (await upload(uploadForm(await cameraJpeg({ seed: 530 }), 'good.jpg', { alt_text: 'Good' }))).body
    const noAlt = (await upload(uploadForm(await cameraJpeg({ seed: 531 }), 'noalt.jpg'))).body
    const embargoed = (await upload(uploadForm(await cameraJpeg({ seed: 532 }), 'later.jpg', { alt_text: 'Later', embargo_until: new Date(Date.now() + 86_400_000).toISOString() }))).body
    const created = await writer.post('/v1/articles', { headline: 'Live then edited', featured_media_id: good.media_id, body: '<p>Text</p>' })
    expect(created.status, created.text).toBe(201)
    const id = created.body.article_id
    for (const to_state of ['in-review', 'approved', 'published']) expect((await writer.post(`/v1/articles/${id}/transitions`, { to_state })).status).toBe(200)
    const edited = await writer.patch(`/v1/articles/${id}`, { featured_media_id: noAlt.media_id, body: `<p>Text</p><figure data-media-id="${embargoed.media_id}"></figure>` })
    expect(edited.status, edited.text).toBe(422)
    expect(edited.body.code).toBe('media_not_publishable')
  })

  it('a bulk import re-sending a live article may not bring in an image publishing would refuse (the item fails, naming it)', async () => {
    const noAlt = (await upload(uploadForm(await cameraJpeg({ seed: 535 }), 'bulk-noalt.jpg'))).body
    const first = await writer.post('/v1/articles/bulk', { articles: [{ headline: 'Wire live', external_id: 'LIVE-1', body: '<p>Text</p>' }] })
    const id = first.body.results[0].article_id
    for (const to_state of ['in-review', 'approved', 'published']) expect((await writer.post(`/v1/articles/${id}/transitions`, { to_state })).status).toBe(200)
    const again = await writer.post('/v1/articles/bulk', { articles: [{ headline: 'Wire live', external_id: 'LIVE-1', body: `<p>Text</p><figure data-media-id="${noAlt.media_id}"></figure>` }] })
    expect(again.body.results[0].status, again.text).toBe('failed')
    expect(JSON.stringify(again.body.results[0].errors)).toContain(noAlt.media_id)
    expect((await writer.get(`/v1/articles/${id}`)).body.body).not.toContain(noAlt.media_id)
  })

  it('bulk import accepts featured_image_url (issue 47: fetched once, deduplicated)', async () => {
    const bytes = await cameraJpeg({ seed: 540 })
    wireFiles.set('/wire/lead.jpg', (res) => res.writeHead(200, { 'Content-Type': 'image/jpeg' }).end(bytes))
    const answer = await writer.post('/v1/articles/bulk', { articles: [{ headline: 'Wire story', external_id: 'W-1', featured_image_url: `${wireUrl}/wire/lead.jpg` }] })
    expect(answer.status, answer.text).toBeLessThan(300)
    expect(JSON.stringify(answer.body)).not.toMatch(/featured_image_url/)
  })

  it('search treats % and _ as the characters they are, not as wildcards matching every image', async () => {
    await upload(uploadForm(await cameraJpeg({ seed: 550, width: 400, height: 300 }), 'plain.jpg', { caption: 'Harbour at dawn' }))
    // Earlier tests here store a file named photo%E0%A4%A.jpg: a `%` that is really there is a match.
    for (const q of ['%', '_']) {
      const answer = await writer.get(`/v1/media?q=${encodeURIComponent(q)}`)
      expect(answer.status).toBe(200)
      const texts = answer.body.items.map((item: Record<string, string | null>) => [item.caption, item.credit, item.alt_text, item.filename].join('\n'))
      expect(texts.filter((text: string) => !text.includes(q)), `q=${q}`).toEqual([])
      expect(answer.body.total, `q=${q}`).toBe(texts.length)
      expect(texts.some((text: string) => text.includes('Harbour at dawn')), `q=${q}`).toBe(false)
    }
  })

  it('the content API gives a live article’s images as { url, srcset, width, height, alt, caption, credit, focal_point }', async () => {
    const lead = (await upload(uploadForm(await cameraJpeg({ seed: 560 }), 'lead.jpg', { alt_text: 'Lead picture' }))).body
    const created = await writer.post('/v1/articles', { headline: 'With a picture', featured_media_id: lead.media_id, body: '<p>Text</p>' })
    const id = created.body.article_id
    for (const to_state of ['in-review', 'approved', 'published']) expect((await writer.post(`/v1/articles/${id}/transitions`, { to_state })).status).toBe(200)
    const key = (await createContentKey(newsroom.actor('admin'), 'Site')).key
    const answer = await apiClient(server.url).get(`/content/v1/articles/${id}`, { 'X-Content-Key': key })
    expect(answer.status, answer.text).toBe(200)
    expect(answer.text).toContain('srcset')
    expect(answer.text).toContain('Lead picture')
  })

  it('no failed upload leaves a file in the temporary directory (nor a 500)', async () => {
    // Uploads stream to os.tmpdir()/newsroom-media; this test gets a directory of its own.
    const previous = process.env.TMPDIR
    process.env.TMPDIR = mkdtempSync(path.join(os.tmpdir(), 'newsroom-media-leak-'))
    const staging = path.join(process.env.TMPDIR, 'newsroom-media')
    // Files only: each process writes under a directory of its own (p<pid>) there.
    const staged = () => (existsSync(staging) ? readdirSync(staging, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => entry.name) : [])
    try {
      const jpeg = await cameraJpeg({ seed: 570 })
      wireFiles.set('/wire/bad%ZZname.jpg', (res) => res.writeHead(200, { 'Content-Type': 'image/jpeg' }).end(Buffer.from('not an image at all')))
      wireFiles.set('/wire/cut.jpg', (res) => { res.writeHead(200, { 'Content-Type': 'image/jpeg', 'Content-Length': String(jpeg.length) }); res.write(jpeg.subarray(0, 100)); res.destroy() })
      const twoFiles = new FormData()
      twoFiles.append('file', new Blob([new Uint8Array(jpeg)], { type: 'image/jpeg' }), 'a.jpg')
      twoFiles.append('file', new Blob([new Uint8Array(await cameraJpeg({ seed: 571 }))], { type: 'image/jpeg' }), 'b.jpg')
      const tooLongCaption = uploadForm(jpeg, 'long.jpg', { caption: '港'.repeat(2_001 * 2) })
      const badField = uploadForm(jpeg, 'bad.jpg', { focal_x: 'left' })
      const statuses = [
        (await upload(twoFiles)).status,
        (await upload(tooLongCaption)).status,
        (await upload(badField)).status,
        (await upload(uploadForm(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'x.svg', {}, 'image/svg+xml'))).status,
        (await upload(uploadForm(jpeg.subarray(0, jpeg.length >> 1), 'half.jpg'))).status,
        (await writer.post('/v1/media', { source_url: `${wireUrl}/wire/bad%ZZname.jpg` })).status,
        (await writer.post('/v1/media', { source_url: `${wireUrl}/wire/cut.jpg` })).status,
        // A multipart body cut off in the middle of the file part.
        (await raw('POST', '/v1/media', { 'Content-Type': 'multipart/form-data; boundary=xyz' }, ['--xyz\r\nContent-Disposition: form-data; name="file"; filename="c.jpg"\r\nContent-Type: image/jpeg\r\n\r\n', jpeg.subarray(0, 2_000), '\r\n--xyz\r\nbroken header\r\n\r\n'])).status,
      ]
      for (const status of statuses) expect(status).toBeGreaterThanOrEqual(400)
      for (const status of statuses) expect(status).toBeLessThan(500)
      // Removal runs as the refusal is sent; give it a moment, then nothing may be left.
      for (let wait = 0; wait < 40 && staged().length > 0; wait++) await new Promise((resolve) => setTimeout(resolve, 50))
      expect(staged()).toEqual([])
    } finally {
      if (previous === undefined) delete process.env.TMPDIR
      else process.env.TMPDIR = previous
    }
  })
})
