import { createServer, request as httpRequest, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createHash } from 'node:crypto'
import exifr from 'exifr'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { setupBackstopMs } from '../support/time-limits.ts'
import { db } from '../../lib/db/client.ts'
import { mediaStore, resetMediaStore } from '../../lib/media/storage/media-storage.ts'
import { renditionPrefix } from '../../lib/media/media-library.ts'
import { orphanGraceMs, sweepOrphanMediaBlobs } from '../../lib/media/orphan-blobs.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { stubEnv } from '../support/stub-env.ts'
import { cameraJpeg, halfBlackHalfWhite, meanBrightness, pngBomb, svgWithScript, uploadForm } from '../support/media-images.ts'

/**
 * The media library over HTTP against one media store: the disk store (the embedded default's)
 * or a real S3 gateway. Each file calls this once with the store's settings in `env`.
 */
export function mediaLibrarySuite(storeName: 'disk' | 's3', storeEnv: () => Promise<Record<string, string>>) {
  let server: Awaited<ReturnType<typeof startApiServer>>
  let newsroom: TestTenant
  let other: TestTenant
  let writer: ReturnType<typeof apiClient>
  let editor: ReturnType<typeof apiClient>
  let reader: ReturnType<typeof apiClient>
  let wire: Server
  let wireUrl: string
  const wireFiles = new Map<string, { body: Buffer; delayMs?: number; status?: number }>()

  const upload = async (client: ReturnType<typeof apiClient>, form: FormData, token?: string) => {
    const response = await fetch(`${server.url}/v1/media`, { method: 'POST', body: form, headers: token ? { Authorization: `Bearer ${token}` } : {} })
    const text = await response.text()
    return { status: response.status, headers: response.headers, text, body: text ? JSON.parse(text) : undefined }
  }
  let writerToken: string

  beforeAll(async () => {
    stubEnv({ ...(await storeEnv()), WEBHOOK_ALLOW_PRIVATE_URLS: 'true', CONTENT_PURGE_URL: undefined })
    resetMediaStore()
    ;[server, newsroom, other] = await Promise.all([startApiServer(), createTestTenant(), createTestTenant()])
    writerToken = await newsroom.token(['media:read', 'media:write'], 'writer')
    writer = apiClient(server.url, writerToken)
    editor = apiClient(server.url, await newsroom.token(['media:read', 'media:write'], 'editor'))
    reader = apiClient(server.url, await newsroom.token(['media:read'], 'editor'))
    wire = createServer((req, res) => {
      const file = wireFiles.get(req.url ?? '')
      if (!file) return void res.writeHead(404).end()
      setTimeout(() => res.writeHead(file.status ?? 200, { 'Content-Type': 'image/jpeg', 'Content-Length': file.body.length }).end(file.body), file.delayMs ?? 0)
    })
    await new Promise<void>((resolve) => wire.listen(0, '127.0.0.1', resolve))
    wireUrl = `http://127.0.0.1:${(wire.address() as AddressInfo).port}`
  }, setupBackstopMs)

  afterAll(async () => {
    // Either may be missing when the set-up failed; an absent server must not leave this waiting.
    wire?.closeAllConnections()
    await Promise.all([server?.close(), wire && new Promise((resolve) => wire.close(resolve))])
    vi.unstubAllEnvs()
    resetMediaStore()
  })

  describe(`uploads (${storeName} store)`, () => {
    it('a multipart upload answers 201 with the record; embedded EXIF fills the empty fields; the original comes back byte for byte', async () => {
      const bytes = await cameraJpeg({ seed: 1 })
      const answer = await upload(writer, uploadForm(bytes, 'boats.jpg', { alt_text: 'Fishing boats in the harbour', credit: 'Staff' }), writerToken)
      expect(answer.status, answer.text).toBe(201)
      expect(answer.headers.get('location')).toBe(`/v1/media/${answer.body.media_id}`)
      expect(answer.headers.get('etag')).toBe('"1"')
      expect(answer.body).toMatchObject({
        content_type: 'image/jpeg',
        filename: 'boats.jpg',
        bytes: bytes.length,
        width: 2000,
        height: 1200,
        sha256: createHash('sha256').update(bytes).digest('hex'),
        alt_text: 'Fishing boats in the harbour',
        // Sent: kept. Left empty: filled from the file's EXIF.
        credit: 'Staff',
        caption: 'Boats return to the harbour',
        copyright: 'Harbour Press',
        focal_point: { x: 0.5, y: 0.5 },
        used_by: [],
        created_by: newsroom.users.writer.id,
        version: 1,
      })
      expect(answer.body.taken_at).toMatch(/^2026-11-28T/)
      expect(answer.body.urls.renditions.filter((r: { crop: string | null }) => r.crop === null).map((r: { width: number }) => r.width)).toEqual([320, 640, 960, 1280, 1920])

      const original = await fetch(`${server.url}${answer.body.urls.original}`, { headers: { Authorization: `Bearer ${writerToken}` } })
      expect(original.status).toBe(200)
      expect(original.headers.get('content-type')).toBe('image/jpeg')
      expect(Buffer.from(await original.arrayBuffer()).equals(bytes)).toBe(true)
    })

    it('the same bytes again answer 200 with the existing record, and store nothing new', async () => {
      const bytes = await cameraJpeg({ seed: 2 })
      const first = await upload(writer, uploadForm(bytes, 'a.jpg'), writerToken)
      expect(first.status).toBe(201)
      const again = await upload(writer, uploadForm(bytes, 'b.jpg', { caption: 'ignored' }), writerToken)
      expect(again.status, again.text).toBe(200)
      expect(again.body.media_id).toBe(first.body.media_id)
      expect(await db.media.count({ where: { tenantId: newsroom.tenant.id, sha256: first.body.sha256 } })).toBe(1)
    })

    it('a source_url is fetched (201), and the same bytes by URL are the existing record (200)', async () => {
      const bytes = await cameraJpeg({ seed: 3 })
      wireFiles.set('/wire/4711.jpg', { body: bytes })
      const first = await writer.post('/v1/media', { source_url: `${wireUrl}/wire/4711.jpg`, alt_text: 'Wire photo' })
      expect(first.status, first.text).toBe(201)
      expect(first.body).toMatchObject({ filename: '4711.jpg', bytes: bytes.length, alt_text: 'Wire photo' })
      const again = await writer.post('/v1/media', { source_url: `${wireUrl}/wire/4711.jpg` })
      expect(again.status).toBe(200)
      expect(again.body.media_id).toBe(first.body.media_id)
    })
  })

  describe(`bad input gets a clear 4xx and nothing stored (${storeName} store)`, () => {
    const countMedia = () => db.media.count({ where: { tenantId: newsroom.tenant.id } })

    it('413 over MEDIA_MAX_BYTES', async () => {
      const before = await countMedia()
      vi.stubEnv('MEDIA_MAX_BYTES', '200000')
      try {
        const big = await cameraJpeg({ width: 3000, height: 3000, seed: 4 })
        const noisy = Buffer.concat([big, Buffer.alloc(Math.max(0, 300_000 - big.length), 7)])
        const answer = await upload(writer, uploadForm(noisy, 'big.jpg'), writerToken)
        expect(answer.status, answer.text).toBe(413)
        expect(answer.body.code).toBe('payload_too_large')
        expect(answer.body.detail).toContain('200,000 bytes')
      } finally {
        vi.stubEnv('MEDIA_MAX_BYTES', undefined)
      }
      expect(await countMedia()).toBe(before)
    })

    it('415 for SVG and for text, whatever the declared type and name', async () => {
      const before = await countMedia()
      for (const [bytes, name] of [[svgWithScript, 'logo.svg'], [Buffer.from('just text, not a picture'), 'photo.jpg']] as const) {
        const answer = await upload(writer, uploadForm(bytes, name, {}, 'image/jpeg'), writerToken)
        expect(answer.status, answer.text).toBe(415)
        expect(answer.body.code).toBe('unsupported_image_type')
      }
      const wrongBody = await writer.call('POST', '/v1/media', { rawBody: 'x=1', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } })
      expect(wrongBody.status).toBe(415)
      expect(await countMedia()).toBe(before)
    })

    it('422 for a decompression bomb and for a corrupt file', async () => {
      const before = await countMedia()
      const bomb = await upload(writer, uploadForm(pngBomb(), 'bomb.png', {}, 'image/png'), writerToken)
      expect(bomb.status, bomb.text).toBe(422)
      expect(bomb.body.code).toBe('image_unreadable')
      expect(bomb.body.detail).toContain('60000×60000')
      const whole = await cameraJpeg({ seed: 5 })
      const truncated = whole.subarray(0, Math.floor(whole.length / 2))
      const corrupt = await upload(writer, uploadForm(truncated, 'cut.jpg'), writerToken)
      expect(corrupt.status, corrupt.text).toBe(422)
      expect(corrupt.body.code).toBe('image_unreadable')
      expect(await countMedia()).toBe(before)
    })

    it('422 naming why for a private, slow or too large source_url', async () => {
      const before = await countMedia()
      vi.stubEnv('WEBHOOK_ALLOW_PRIVATE_URLS', 'false')
      try {
        const privateUrl = await writer.post('/v1/media', { source_url: 'https://127.0.0.1/photo.jpg' })
        expect(privateUrl.status, privateUrl.text).toBe(422)
        expect(privateUrl.body.code).toBe('source_url_refused')
        expect(privateUrl.body.detail).toMatch(/private, loopback or link-local/)
        const metadata = await writer.post('/v1/media', { source_url: 'https://169.254.169.254/latest/meta-data' })
        expect(metadata.status).toBe(422)
      } finally {
        vi.stubEnv('WEBHOOK_ALLOW_PRIVATE_URLS', 'true')
      }
      vi.stubEnv('MEDIA_FETCH_TIMEOUT_MS', '400')
      try {
        wireFiles.set('/slow.jpg', { body: await cameraJpeg({ seed: 6 }), delayMs: 3_000 })
        const slow = await writer.post('/v1/media', { source_url: `${wireUrl}/slow.jpg` })
        expect(slow.status, slow.text).toBe(422)
        expect(slow.body.detail).toMatch(/within 0.4 s/)
      } finally {
        vi.stubEnv('MEDIA_FETCH_TIMEOUT_MS', undefined)
      }
      vi.stubEnv('MEDIA_MAX_BYTES', '10000')
      try {
        wireFiles.set('/large.jpg', { body: await cameraJpeg({ seed: 7 }) })
        const large = await writer.post('/v1/media', { source_url: `${wireUrl}/large.jpg` })
        expect(large.status, large.text).toBe(422)
        expect(large.body.detail).toMatch(/larger than this newsroom accepts/)
      } finally {
        vi.stubEnv('MEDIA_MAX_BYTES', undefined)
      }
      const missing = await writer.post('/v1/media', { source_url: `${wireUrl}/nothing-here.jpg` })
      expect(missing.status).toBe(422)
      expect(missing.body.detail).toMatch(/answered 404/)
      expect(await countMedia()).toBe(before)
    })

    it('503 with Retry-After once the instance holds as many uploads as it may and its queue is full', { timeout: 90_000 }, async () => {
      vi.stubEnv('LARGE_BODY_CONCURRENCY', '1')
      // One token stands for many clients here: LARGE_BODY_PER_CLIENT raised past the line's size.
      vi.stubEnv('LARGE_BODY_PER_CLIENT', '100')
      const { port } = new URL(server.url)
      const stalled: ReturnType<typeof httpRequest>[] = []
      try {
        // One upload holds the slot (its body never ends); 32 wait their turn; the next is refused.
        for (let i = 0; i < 33; i++) {
          const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/v1/media', headers: { Authorization: `Bearer ${writerToken}`, 'Content-Type': 'multipart/form-data; boundary=xyz', 'Content-Length': '100000' } })
          req.on('error', () => undefined)
          req.write('--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n\xff\xd8\xff')
          stalled.push(req)
        }
        let refused: Awaited<ReturnType<typeof upload>> | undefined
        for (let attempt = 0; attempt < 50 && !refused; attempt++) {
          const answer = await upload(writer, uploadForm(await cameraJpeg({ seed: 8 }), 'c.jpg'), writerToken)
          if (answer.status === 503) refused = answer
          else await new Promise((resolve) => setTimeout(resolve, 100))
        }
        expect(refused?.body.code).toBe('service_unavailable')
        expect(Number(refused?.headers.get('retry-after'))).toBeGreaterThan(0)
      } finally {
        for (const req of stalled) req.destroy()
        vi.stubEnv('LARGE_BODY_CONCURRENCY', undefined)
        vi.stubEnv('LARGE_BODY_PER_CLIENT', undefined)
      }
      // The abandoned uploads give their slots back: the next upload is served.
      let after = 0
      for (let attempt = 0; attempt < 50 && after !== 201; attempt++) {
        after = (await upload(writer, uploadForm(await cameraJpeg({ seed: 8 }), 'c.jpg'), writerToken)).status
        if (after !== 201) await new Promise((resolve) => setTimeout(resolve, 200))
      }
      expect(after).toBe(201)
    })
  })

  describe(`renditions (${storeName} store)`, () => {
    let record: { media_id: string; sha256: string; urls: { renditions: { width: number; height: number; crop: string | null; url: string }[] } }
    beforeAll(async () => {
      const answer = await upload(writer, uploadForm(await cameraJpeg({ seed: 9 }), 'r.jpg', { alt_text: 'x' }), writerToken)
      expect(answer.status, answer.text).toBe(201)
      record = answer.body
    })
    const get = (url: string, accept?: string) => fetch(server.url + url, { headers: accept ? { Accept: accept } : {} })

    it('every offered width is served at that width, immutable, with no metadata at all (no GPS, no serial number)', async () => {
      for (const rendition of record.urls.renditions.filter((r) => r.crop === null)) {
        const response = await get(rendition.url)
        expect(response.status).toBe(200)
        expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
        expect(response.headers.get('vary')).toContain('Accept')
        const bytes = Buffer.from(await response.arrayBuffer())
        const meta = await sharp(bytes).metadata()
        expect(meta.format).toBe('jpeg')
        expect([meta.width, meta.height]).toEqual([rendition.width, rendition.height])
        expect(meta.exif).toBeUndefined()
        expect(await exifr.gps(bytes).catch(() => undefined)).toBeUndefined()
        const tags = await exifr.parse(bytes, { tiff: true, exif: true, gps: true, iptc: true, xmp: true }).catch(() => undefined)
        expect(JSON.stringify(tags ?? {})).not.toMatch(/SN-0042|GPS|Jane Doe/)
      }
      // The original keeps what the photographer's camera wrote: that is why it is private.
      const original = await fetch(`${server.url}/v1/media/${record.media_id}/original`, { headers: { Authorization: `Bearer ${writerToken}` } })
      const gps = await exifr.gps(Buffer.from(await original.arrayBuffer()))
      expect(gps.latitude).toBeCloseTo(51.509, 2)
    })

    it('AVIF or WebP when Accept names them, JPEG otherwise; a second request is served from the store', async () => {
      const url = record.urls.renditions.find((r) => r.width === 320 && r.crop === null)!.url
      for (const [accept, format, type] of [['image/avif,image/webp,*/*', 'heif', 'image/avif'], ['image/webp,*/*', 'webp', 'image/webp'], ['*/*', 'jpeg', 'image/jpeg'], [undefined, 'jpeg', 'image/jpeg']] as const) {
        const response = await get(url, accept)
        expect(response.headers.get('content-type')).toBe(type)
        expect((await sharp(Buffer.from(await response.arrayBuffer())).metadata()).format).toBe(format)
      }
      const stored = await mediaStore().get(`${renditionPrefix(newsroom.tenant.id, record.sha256)}${url.split('/').at(-2)}.webp`)
      expect(stored?.bytes).toBeGreaterThan(0)
      stored?.body.destroy()
    })

    it('refuses (404) a URL whose signature or size was altered', async () => {
      const url = record.urls.renditions.find((r) => r.width === 640 && r.crop === null)!.url
      const parts = url.split('/')
      const badSignature = [...parts.slice(0, -1), parts.at(-1)!.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'))].join('/')
      expect((await get(badSignature)).status).toBe(404)
      const otherWidth = [...parts.slice(0, -2), parts.at(-2)!.replace('-w640', '-w641'), parts.at(-1)].join('/')
      expect((await get(otherWidth)).status).toBe(404)
      expect((await get(`/content/v1/media/${record.media_id}/nonsense/xyz`)).status).toBe(404)
    })

    it('crops around the focal point, and a new focal point is a new URL (the old one is gone)', async () => {
      const created = await upload(writer, uploadForm(await halfBlackHalfWhite(), 'halves.png', { alt_text: 'halves', focal_x: '0.9', focal_y: '0.5' }, 'image/png'), writerToken)
      expect(created.status, created.text).toBe(201)
      const square = (body: typeof record) => body.urls.renditions.find((r) => r.crop === '1x1' && r.width === 320)!
      const right = square(created.body)
      expect([right.width, right.height]).toEqual([320, 320])
      expect(await meanBrightness(Buffer.from(await (await get(right.url)).arrayBuffer()))).toBeGreaterThan(240)
      const moved = await writer.patch(`/v1/media/${created.body.media_id}`, { focal_point: { x: 0.1, y: 0.5 } })
      expect(moved.status, moved.text).toBe(200)
      const left = square(moved.body)
      expect(left.url).not.toBe(right.url)
      expect(await meanBrightness(Buffer.from(await (await get(left.url)).arrayBuffer()))).toBeLessThan(15)
      expect((await get(right.url)).status).toBe(404)
    })
  })

  describe(`images in articles and the rights rules (${storeName} store)`, () => {
    it('publishing refuses 422 media_not_publishable naming each image and what is missing; fixed, it publishes; a published article’s image cannot be deleted (409)', async () => {
      const articles = apiClient(server.url, await newsroom.token(['articles:read', 'articles:write', 'media:read', 'media:write'], 'editor'))
      const featured = (await upload(writer, uploadForm(await cameraJpeg({ seed: 20 }), 'lead.jpg'), writerToken)).body
      const inBody = (await upload(writer, uploadForm(await cameraJpeg({ seed: 21 }), 'inline.jpg', { alt_text: 'Inline', expires_at: new Date(Date.now() - 60_000).toISOString() }), writerToken)).body
      const embargoed = (await upload(writer, uploadForm(await cameraJpeg({ seed: 22 }), 'later.jpg', { alt_text: 'Later', embargo_until: new Date(Date.now() + 86_400_000).toISOString() }), writerToken)).body

      const unknown = await articles.post('/v1/articles', { headline: 'Bad ref', featured_media_id: 'med_0000000000000000000000000' })
      expect(unknown.status).toBe(422)
      expect(unknown.body.errors[0].field).toBe('featured_media_id')
      const foreign = (await upload(apiClient(server.url), uploadForm(await cameraJpeg({ seed: 23 }), 'x.jpg'), await other.token(['admin']))).body
      expect((await articles.post('/v1/articles', { headline: 'Foreign ref', featured_media_id: foreign.media_id })).status).toBe(422)

      const body = `<p>Text</p><figure data-media-id="${inBody.media_id}"><figcaption>Inline</figcaption></figure><figure data-media-id="${embargoed.media_id}"></figure><img src="https://cdn.example/x.jpg">`
      const created = await articles.post('/v1/articles', { headline: 'Harbour fire', featured_media_id: featured.media_id, body })
      expect(created.status, created.text).toBe(201)
      expect(created.body.featured_media_id).toBe(featured.media_id)
      expect(created.body.body).not.toContain('<img')
      const id = created.body.article_id
      expect((await writer.get(`/v1/media/${featured.media_id}`)).body.used_by).toEqual([id])

      for (const to_state of ['in-review', 'approved']) expect((await articles.post(`/v1/articles/${id}/transitions`, { to_state })).status).toBe(200)
      const refused = await articles.post(`/v1/articles/${id}/transitions`, { to_state: 'published' })
      expect(refused.status, refused.text).toBe(422)
      expect(refused.body.code).toBe('media_not_publishable')
      const byId = Object.fromEntries(refused.body.media.map((item: { media_id: string; missing: string[] }) => [item.media_id, item.missing]))
      expect(byId).toEqual({ [featured.media_id]: ['alt_text_missing'], [inBody.media_id]: ['licence_expired'], [embargoed.media_id]: ['under_embargo'] })
      expect(refused.body.detail).toContain('lead.jpg')
      expect((await articles.get(`/v1/articles/${id}`)).body.status).toBe('approved')

      await writer.patch(`/v1/media/${featured.media_id}`, { alt_text: 'Firefighters at the harbour' })
      await writer.patch(`/v1/media/${inBody.media_id}`, { rights: { expires_at: new Date(Date.now() + 30 * 86_400_000).toISOString() } })
      await writer.patch(`/v1/media/${embargoed.media_id}`, { rights: { embargo_until: null } })
      const published = await articles.post(`/v1/articles/${id}/transitions`, { to_state: 'published' })
      expect(published.status, published.text).toBe(200)

      const inUse = await articles.delete(`/v1/media/${inBody.media_id}`)
      expect(inUse.status).toBe(409)
      expect(inUse.body).toMatchObject({ code: 'media_in_use', article_ids: [id] })
      expect((await writer.get(`/v1/media?unused=false&limit=100`)).body.items.map((item: { media_id: string }) => item.media_id)).toEqual(expect.arrayContaining([featured.media_id, inBody.media_id, embargoed.media_id]))
    })

    it('media events are delivered to webhooks byte for byte as the events API serves them', async () => {
      const { startWebhookReceiver } = await import('../support/webhook-receiver.ts')
      const { createWebhook } = await import('../../lib/webhooks/manage-subscriptions.ts')
      const { createDeliveriesForEvent } = await import('../../lib/webhooks/create-deliveries.ts')
      const { deliverAttempt } = await import('../../lib/webhooks/deliver-attempt.ts')
      vi.stubEnv('WEBHOOK_SECRET_KEY', 'media-events-test-key')
      const receiver = await startWebhookReceiver()
      try {
        const subscription = await createWebhook(newsroom.actor('admin'), { url: receiver.url, events: ['media.uploaded', 'media.updated', 'media.deleted'], secret: 'media-events-secret-01' })
        const since = new Date(Date.now() - 1)
        const made = (await upload(writer, uploadForm(await cameraJpeg({ seed: 30 }), 'ev.jpg'), writerToken)).body
        await writer.patch(`/v1/media/${made.media_id}`, { caption: 'Événement "quoted" & <b>bold</b>' })
        await writer.delete(`/v1/media/${made.media_id}`)
        const rows = await db.event.findMany({ where: { tenantId: newsroom.tenant.id, kind: { startsWith: 'media.' }, occurredAt: { gte: since } }, orderBy: { occurredAt: 'asc' } })
        expect(rows.map((row) => row.kind)).toEqual(['media.uploaded', 'media.updated', 'media.deleted'])
        const events = apiClient(server.url, await newsroom.token(['events:read']))
        for (const row of rows) {
          const [planned] = await createDeliveriesForEvent(row.id)
          const delivery = planned ?? (await db.delivery.findFirstOrThrow({ where: { eventId: row.id, subscriptionId: subscription.id } }))
          receiver.reset()
          await deliverAttempt('deliveryId' in delivery ? delivery.deliveryId : delivery.id, { kind: 'manual' })
          const [received] = receiver.requests
          expect(received, row.kind).toBeDefined()
          expect(JSON.parse(received!.body).data.media_id).toBe(made.media_id)
          const answer = await events.get(`/v1/events/${row.id}`)
          expect(answer.text).toBe(received!.body)
        }
      } finally {
        await receiver.close()
      }
    })
  })

  describe(`records, permissions and tenancy (${storeName} store)`, () => {
    it('PATCH honours If-Match; a writer changes only their own images, an editor any', async () => {
      const mine = (await upload(writer, uploadForm(await cameraJpeg({ seed: 10 }), 'w.jpg'), writerToken)).body
      const stale = await writer.patch(`/v1/media/${mine.media_id}`, { caption: 'New' }, { 'If-Match': '"7"' })
      expect(stale.status).toBe(412)
      const changed = await writer.patch(`/v1/media/${mine.media_id}`, { caption: 'New', rights: { usage_terms: 'Editorial only' } }, { 'If-Match': '"1"' })
      expect(changed.status, changed.text).toBe(200)
      expect(changed.headers.get('etag')).toBe('"2"')
      expect(changed.body).toMatchObject({ caption: 'New', rights: { usage_terms: 'Editorial only', embargo_until: null, expires_at: null }, version: 2 })

      wireFiles.set('/wire/editor.jpg', { body: await cameraJpeg({ seed: 11 }) })
      const editors = await editor.post('/v1/media', { source_url: `${wireUrl}/wire/editor.jpg` })
      expect(editors.status, editors.text).toBe(201)
      const refused = await writer.patch(`/v1/media/${editors.body.media_id}`, { caption: 'Mine now' })
      expect(refused.status).toBe(403)
      expect(refused.body.detail).toMatch(/only the images they uploaded/)
      expect((await writer.delete(`/v1/media/${editors.body.media_id}`)).status).toBe(403)
      expect((await editor.patch(`/v1/media/${mine.media_id}`, { alt_text: 'Edited by the desk' })).status).toBe(200)
    })

    it('lists newest first with filters and cursors', async () => {
      const tag = `needle${Date.now()}`
      const ids: string[] = []
      for (let i = 0; i < 3; i++) ids.push((await upload(writer, uploadForm(await cameraJpeg({ seed: 100 + i, width: 400, height: 300 }), `${tag}-${i}.jpg`, { credit: i === 1 ? 'Agency X' : 'Staff' }), writerToken)).body.media_id)
      const page1 = await reader.get(`/v1/media?q=${tag}&limit=2`)
      expect(page1.status, page1.text).toBe(200)
      expect(page1.body.items.map((item: { media_id: string }) => item.media_id)).toEqual([ids[2], ids[1]])
      const page2 = await reader.get(`/v1/media?q=${tag}&limit=2&cursor=${encodeURIComponent(page1.body.next_cursor)}`)
      expect(page2.body.items.map((item: { media_id: string }) => item.media_id)).toEqual([ids[0]])
      const byCredit = await reader.get(`/v1/media?q=${tag}&credit=agency%20x`)
      expect(byCredit.body.items.map((item: { media_id: string }) => item.media_id)).toEqual([ids[1]])
      const unused = await reader.get(`/v1/media?q=${tag}&unused=true`)
      expect(unused.body.total).toBe(3)
      expect((await reader.get('/v1/media?unused=maybe')).status).toBe(422)
    })

    it('needs media:read to read and media:write to change; another newsroom’s image is a 404 everywhere', async () => {
      const mine = (await upload(writer, uploadForm(await cameraJpeg({ seed: 12 }), 't.jpg'), writerToken)).body
      const articlesOnly = apiClient(server.url, await newsroom.token(['articles:read', 'articles:write']))
      expect((await articlesOnly.get('/v1/media')).status).toBe(403)
      expect((await articlesOnly.get(`/v1/media/${mine.media_id}`)).status).toBe(403)
      expect((await reader.patch(`/v1/media/${mine.media_id}`, { caption: 'x' })).status).toBe(403)
      expect((await reader.delete(`/v1/media/${mine.media_id}`)).status).toBe(403)
      const readOnly = await upload(reader, uploadForm(await cameraJpeg({ seed: 13 }), 'r.jpg'), await newsroom.token(['media:read'], 'editor'))
      expect(readOnly.status).toBe(403)

      const outsider = apiClient(server.url, await other.token(['admin']))
      for (const answer of [
        await outsider.get(`/v1/media/${mine.media_id}`),
        await outsider.get(`/v1/media/${mine.media_id}/original`),
        await outsider.patch(`/v1/media/${mine.media_id}`, { caption: 'x' }),
        await outsider.delete(`/v1/media/${mine.media_id}`),
      ]) {
        expect(answer.status).toBe(404)
        expect(answer.body.code).toBe('not_found')
      }
      expect((await outsider.get('/v1/media?limit=100')).body.items.map((item: { media_id: string }) => item.media_id)).not.toContain(mine.media_id)
      // The same bytes in another newsroom are that newsroom's own image, not a 200 with ours.
      const theirs = await upload(outsider, uploadForm(await cameraJpeg({ seed: 12 }), 't.jpg'), await other.token(['admin']))
      expect(theirs.status).toBe(201)
      expect(theirs.body.media_id).not.toBe(mine.media_id)
    })

    it('DELETE removes the record, its stored bytes and its renditions, and sends media.deleted', async () => {
      const created = (await upload(writer, uploadForm(await cameraJpeg({ seed: 14 }), 'd.jpg', { alt_text: 'gone soon' }), writerToken)).body
      const rendition = created.urls.renditions[0].url
      expect((await fetch(server.url + rendition)).status).toBe(200)
      const row = await db.media.findUniqueOrThrow({ where: { id: created.media_id } })
      const deleted = await writer.delete(`/v1/media/${created.media_id}`)
      expect(deleted.status, deleted.text).toBe(204)
      expect((await writer.get(`/v1/media/${created.media_id}`)).status).toBe(404)
      expect((await fetch(server.url + rendition)).status).toBe(404)
      expect(await mediaStore().get(row.storageKey)).toBeNull()
      expect(await mediaStore().get(`${renditionPrefix(newsroom.tenant.id, row.sha256)}${rendition.split('/').at(-2)}.jpeg`)).toBeNull()
      const kinds = (await db.event.findMany({ where: { tenantId: newsroom.tenant.id, kind: { startsWith: 'media.' } }, orderBy: [{ occurredAt: 'asc' }, { id: 'asc' }] })).filter((event) => (event.data as { media_id?: string }).media_id === created.media_id).map((event) => event.kind)
      expect(kinds).toEqual(['media.uploaded', 'media.deleted'])
    })

    it('a deletion whose blob removal comes late never removes the bytes of the same image uploaded again meanwhile', async () => {
      const bytes = await cameraJpeg({ seed: 17 })
      const first = (await upload(writer, uploadForm(bytes, 'again.jpg', { alt_text: 'First upload' }), writerToken)).body
      // A stored rendition, for the deletion to remove late as well.
      expect((await fetch(server.url + first.urls.renditions[0].url)).status).toBe(200)

      // The real store, its removals held after the deletion has committed (as a slow store or a
      // busy gateway holds them) until the same bytes are in the library again.
      const store = mediaStore()
      let removalReached!: () => void
      const removing = new Promise<void>((resolve) => (removalReached = resolve))
      let release!: () => void
      const released = new Promise<void>((resolve) => (release = resolve))
      const held = (['delete', 'deletePrefix'] as const).filter((name) => typeof (store as Partial<typeof store>)[name] === 'function').map((name) => {
        const real = store[name].bind(store)
        return vi.spyOn(store, name).mockImplementation(async (key: string) => {
          removalReached()
          await released
          return real(key)
        })
      })
      try {
        const deleting = writer.delete(`/v1/media/${first.media_id}`)
        await removing
        expect((await writer.get(`/v1/media/${first.media_id}`)).status).toBe(404)
        const again = await upload(writer, uploadForm(bytes, 'again.jpg', { alt_text: 'Uploaded again' }), writerToken)
        expect(again.status, again.text).toBe(201)
        release()
        expect((await deleting).status).toBe(204)
        for (const spy of held) spy.mockRestore()

        const original = await fetch(`${server.url}${again.body.urls.original}`, { headers: { Authorization: `Bearer ${writerToken}` } })
        expect(original.status).toBe(200)
        expect(Buffer.from(await original.arrayBuffer()).equals(bytes)).toBe(true)
        // Its renditions (the deletion may have removed stored ones of these bytes) render again from the original.
        for (const rendition of again.body.urls.renditions.slice(0, 2)) expect((await fetch(server.url + rendition.url)).status).toBe(200)
      } finally {
        release()
        for (const spy of held) spy.mockRestore()
      }
    })

    it('a deletion the store refused leaves blobs that the daily sweep removes, once old enough, keeping every blob a record refers to', async () => {
      const kept = (await upload(writer, uploadForm(await cameraJpeg({ seed: 9019 }), 'kept.jpg', { alt_text: 'Kept' }), writerToken)).body
      const doomed = (await upload(writer, uploadForm(await cameraJpeg({ seed: 9020 }), 'doomed.jpg', { alt_text: 'Doomed' }), writerToken)).body
      for (const media of [kept, doomed]) expect((await fetch(server.url + media.urls.renditions[0].url)).status).toBe(200)
      const [keptRow, doomedRow] = await Promise.all([kept, doomed].map((media) => db.media.findUniqueOrThrow({ where: { id: media.media_id } })))
      const renditionKeys = async (sha256: string) => {
        const keys: string[] = []
        for await (const page of mediaStore().list(renditionPrefix(newsroom.tenant.id, sha256))) keys.push(...page.map((object) => object.key))
        return keys
      }
      const doomedRenditions = await renditionKeys(doomedRow!.sha256)
      expect(doomedRenditions.length).toBeGreaterThan(0)

      // The store does not answer the deletion's removals: the record goes, its blobs stay.
      const store = mediaStore()
      const spies = (['delete', 'deletePrefix'] as const).map((name) => vi.spyOn(store, name).mockRejectedValue(new Error('the object store is not answering')))
      try {
        expect((await writer.delete(`/v1/media/${doomed.media_id}`)).status).toBe(204)
      } finally {
        for (const spy of spies) spy.mockRestore()
      }
      const left = await store.get(doomedRow!.storageKey)
      left?.body.destroy()
      expect(left).not.toBeNull()

      // Today's sweep leaves them (an upload in flight stores its bytes before its record).
      expect((await sweepOrphanMediaBlobs()).removed).not.toContain(doomedRow!.storageKey)
      // A day later they go; every blob of a record stays.
      const sweep = await sweepOrphanMediaBlobs({ now: new Date(Date.now() + orphanGraceMs + 60_000) })
      expect(sweep.removed).toEqual(expect.arrayContaining([doomedRow!.storageKey, ...doomedRenditions]))
      expect(await store.get(doomedRow!.storageKey)).toBeNull()
      expect(await renditionKeys(doomedRow!.sha256)).toEqual([])
      const original = await store.get(keptRow!.storageKey)
      original?.body.destroy()
      expect(original).not.toBeNull()
      expect((await renditionKeys(keptRow!.sha256)).length).toBeGreaterThan(0)
      expect(sweep.removed.filter((key) => key.includes(keptRow!.sha256))).toEqual([])
    })

    it('two uploads of the same bytes at once: one record, and the losing upload\'s stored copy is removed, not left behind', async () => {
      const bytes = await cameraJpeg({ seed: 18 })
      const store = mediaStore()
      const real = store.putFile.bind(store)
      const keys: string[] = []
      let bothStoring!: () => void
      const both = new Promise<void>((resolve) => (bothStoring = resolve))
      // Each upload is held as it stores its bytes until the other is storing too: both passed
      // the "already have these bytes?" check, as two requests arriving together do.
      const spy = vi.spyOn(store, 'putFile').mockImplementation(async (key, sourcePath, contentType) => {
        keys.push(key)
        if (keys.length === 2) bothStoring()
        await both
        return real(key, sourcePath, contentType)
      })
      let answers: Awaited<ReturnType<typeof upload>>[]
      try {
        answers = await Promise.all(['one.jpg', 'two.jpg'].map((name) => upload(writer, uploadForm(bytes, name), writerToken)))
      } finally {
        spy.mockRestore()
      }
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 201])
      expect(answers[0]!.body.media_id).toBe(answers[1]!.body.media_id)
      const row = await db.media.findUniqueOrThrow({ where: { id: answers[0]!.body.media_id } })
      // Each stored its copy under a key of its own (a shared key would be the race of the test above).
      expect(new Set(keys).size).toBe(2)
      expect(keys).toContain(row.storageKey)
      for (const key of keys) {
        const stored = await store.get(key)
        stored?.body.destroy()
        expect(stored !== null, key).toBe(key === row.storageKey)
      }
    })
  })
}
