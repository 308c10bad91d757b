import { mkdtempSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { InngestTestEngine } from '@inngest/test'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { withholdExpiredMediaFunction } from '../../inngest/functions/withhold-expired-media.ts'
import { sweepOrphanMediaFunction } from '../../inngest/functions/sweep-orphan-media.ts'
import { createContentKey } from '../../lib/content/content-keys.ts'
import { publicArticleSchema } from '../../lib/content/public-article-schema.ts'
import { db } from '../../lib/db/client.ts'
import { readDesk } from '../../lib/desk/read-desk.ts'
import { withholdExpiredMedia } from '../../lib/media/licence-expiry.ts'
import { resetMediaStore } from '../../lib/media/storage/media-storage.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { cameraJpeg, uploadForm } from '../support/media-images.ts'
import { stubEnv } from '../support/stub-env.ts'
import { setupBackstopMs } from '../support/time-limits.ts'

// Images in articles beyond the upload itself (the disk store, as `npm run dev` keeps them):
// bulk import's featured images, the content API's `images`, and what happens at licence expiry.

let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let other: TestTenant
let editor: ReturnType<typeof apiClient>
let editorToken: string
let contentKey: string
let wire: Server
let wireUrl: string
const wireFiles = new Map<string, Buffer>()
const wireRequests: string[] = []

beforeAll(async () => {
  // A purge hook that is never called here (the outbox rows are what is checked): its presence
  // makes a change write its content.purge_requested event.
  stubEnv({ MEDIA_DIR: mkdtempSync(path.join(os.tmpdir(), 'newsroom-media-test-')), MEDIA_S3_ENDPOINT: '', MEDIA_S3_BUCKET: '', WEBHOOK_ALLOW_PRIVATE_URLS: 'true', CONTENT_PURGE_URL: 'http://127.0.0.1:9/purge' })
  resetMediaStore()
  ;[server, newsroom, other] = await Promise.all([startApiServer(), createTestTenant(), createTestTenant()])
  editorToken = await newsroom.token(['articles:read', 'articles:write', 'media:read', 'media:write'], 'editor')
  editor = apiClient(server.url, editorToken)
  contentKey = (await createContentKey(newsroom.actor('admin'), 'Public site')).key
  wire = createServer((req, res) => {
    wireRequests.push(req.url ?? '')
    const body = wireFiles.get(req.url ?? '')
    if (!body) return void res.writeHead(404).end()
    res.writeHead(200, { 'Content-Type': 'image/jpeg', 'Content-Length': body.length }).end(body)
  })
  await new Promise<void>((resolve) => wire.listen(0, '127.0.0.1', resolve))
  wireUrl = `http://127.0.0.1:${(wire.address() as AddressInfo).port}`
}, setupBackstopMs)

afterAll(async () => {
  wire?.closeAllConnections()
  await Promise.all([server?.close(), wire && new Promise((resolve) => wire.close(resolve))])
  vi.unstubAllEnvs()
  resetMediaStore()
})

const uploadAs = async (token: string, bytes: Buffer, filename: string, fields: Record<string, string> = {}) => {
  const response = await fetch(`${server.url}/v1/media`, { method: 'POST', body: uploadForm(bytes, filename, fields), headers: { Authorization: `Bearer ${token}` } })
  expect(response.status).toBeLessThan(300)
  return (await response.json()) as { media_id: string; width: number; height: number }
}

async function publish(id: string) {
  for (const to_state of ['in-review', 'approved', 'published']) {
    const moved = await editor.post(`/v1/articles/${id}/transitions`, { to_state })
    expect(moved.status, moved.text).toBe(200)
  }
}

const content = (pathname: string) => fetch(`${server.url}${pathname}${pathname.includes('?') ? '&' : '?'}key=${contentKey}`)

describe('bulk import with featured images', () => {
  it('featured_media_id must name an image of the newsroom: an unknown or another newsroom’s id fails only its item', async () => {
    const mine = await uploadAs(editorToken, await cameraJpeg({ seed: 101 }), 'mine.jpg')
    const theirs = await uploadAs(await other.token(['admin']), await cameraJpeg({ seed: 102 }), 'theirs.jpg')
    const answer = await editor.post('/v1/articles/bulk', {
      articles: [
        { external_id: 'IMG-1', headline: 'With our image', featured_media_id: mine.media_id },
        { external_id: 'IMG-2', headline: 'With a foreign image', featured_media_id: theirs.media_id },
        { external_id: 'IMG-3', headline: 'With a made-up image', featured_media_id: 'med_0000000000000000000000000' },
        { external_id: 'IMG-4', headline: 'Both ways', featured_media_id: mine.media_id, featured_image_url: `${wireUrl}/x.jpg` },
      ],
    })
    expect(answer.status, answer.text).toBe(200)
    expect(answer.body).toMatchObject({ created: 1, failed: 3 })
    expect(answer.body.results[0]).toMatchObject({ status: 'created', featured_media_id: mine.media_id })
    for (const index of [1, 2]) {
      expect(answer.body.results[index].status).toBe('failed')
      expect(answer.body.results[index].errors).toEqual([{ field: 'featured_media_id', message: expect.stringContaining('No media') }])
    }
    expect(answer.body.results[3].errors).toEqual([{ field: 'featured_image_url', message: 'Send either featured_image_url or featured_media_id, not both.' }])
    const stored = await editor.get(`/v1/articles/${answer.body.results[0].article_id}`)
    expect(stored.body.featured_media_id).toBe(mine.media_id)
    expect((await editor.get(`/v1/media/${mine.media_id}`)).body.used_by).toEqual([answer.body.results[0].article_id])
    expect(wireRequests).not.toContain('/x.jpg')
  })

  it('featured_image_url is fetched once per URL, the same bytes under another URL are the same record, and an unfetchable URL fails only its items', async () => {
    const photo = await cameraJpeg({ seed: 103 })
    wireFiles.set('/wire/storm.jpg', photo)
    wireFiles.set('/mirror/storm-copy.jpg', photo)
    wireFiles.set('/wire/not-an-image.jpg', Buffer.from('<html>Not found</html>'))
    const before = await db.media.count({ where: { tenantId: newsroom.tenant.id } })
    const uploadedBefore = await db.event.count({ where: { tenantId: newsroom.tenant.id, kind: 'media.uploaded' } })
    const answer = await editor.post('/v1/articles/bulk', {
      articles: [
        { external_id: 'STORM-1', headline: 'Storm closes roads', featured_image_url: `${wireUrl}/wire/storm.jpg` },
        { external_id: 'STORM-2', headline: 'Storm: ferries cancelled', featured_image_url: `${wireUrl}/wire/storm.jpg` },
        { external_id: 'STORM-3', headline: 'Storm: schools shut', featured_image_url: `${wireUrl}/mirror/storm-copy.jpg` },
        { external_id: 'STORM-4', headline: 'Storm: the gone photo', featured_image_url: `${wireUrl}/wire/missing.jpg` },
        { external_id: 'STORM-5', headline: 'Storm: the page', featured_image_url: `${wireUrl}/wire/not-an-image.jpg` },
        { external_id: 'STORM-6', headline: 'Storm: the private one', featured_image_url: 'ftp://wire.example/x.jpg' },
      ],
    })
    expect(answer.status, answer.text).toBe(200)
    expect(answer.body).toMatchObject({ created: 3, failed: 3 })
    const [one, two, three, gone, page, ftp] = answer.body.results
    expect(one.featured_media_id).toMatch(/^med_/)
    expect(two.featured_media_id).toBe(one.featured_media_id)
    expect(three.featured_media_id).toBe(one.featured_media_id)
    expect(gone).toMatchObject({ status: 'failed', errors: [{ field: 'featured_image_url', message: expect.stringContaining('404') }] })
    expect(page).toMatchObject({ status: 'failed', errors: [{ field: 'featured_image_url', message: expect.stringContaining('not a JPEG') }] })
    expect(ftp).toMatchObject({ status: 'failed', errors: [{ field: 'featured_image_url', message: 'featured_image_url must be an absolute https URL.' }] })
    // One fetch per URL; one record (and one media.uploaded) for the bytes, whichever URL brought them.
    expect(wireRequests.filter((url) => url === '/wire/storm.jpg')).toHaveLength(1)
    expect(wireRequests.filter((url) => url === '/mirror/storm-copy.jpg')).toHaveLength(1)
    expect(await db.media.count({ where: { tenantId: newsroom.tenant.id } })).toBe(before + 1)
    expect(await db.event.count({ where: { tenantId: newsroom.tenant.id, kind: 'media.uploaded' } })).toBe(uploadedBefore + 1)
    const media = (await editor.get(`/v1/media/${one.featured_media_id}`)).body
    // Both URLs are fetched at once: the record is named by whichever brought the bytes first.
    expect(['storm.jpg', 'storm-copy.jpg']).toContain(media.filename)
    expect(media.alt_text).toBeNull()
    expect([...media.used_by].sort()).toEqual([one.article_id, two.article_id, three.article_id].sort())

    // Re-sent without an image, the article keeps the one it has.
    const again = await editor.post('/v1/articles/bulk', { articles: [{ external_id: 'STORM-1', headline: 'Storm closes roads (update)' }] })
    expect(again.body.results[0]).toMatchObject({ status: 'updated', featured_media_id: one.featured_media_id })
  })

  it('featured_image_url adds to the media library, so it needs media:write: a key without it fails those items and fetches nothing', async () => {
    const photo = await cameraJpeg({ seed: 104 })
    wireFiles.set('/wire/scoped.jpg', photo)
    const articlesOnly = apiClient(server.url, await newsroom.token(['articles:read', 'articles:write'], 'editor'))
    const answer = await articlesOnly.post('/v1/articles/bulk', {
      articles: [
        { external_id: 'SCOPE-1', headline: 'No image' },
        { external_id: 'SCOPE-2', headline: 'With a wire photo', featured_image_url: `${wireUrl}/wire/scoped.jpg` },
      ],
    })
    expect(answer.status, answer.text).toBe(200)
    expect(answer.body).toMatchObject({ created: 1, failed: 1 })
    expect(answer.body.results[1]).toMatchObject({
      status: 'failed',
      errors: [{ field: 'featured_image_url', message: expect.stringContaining('media:write') }],
    })
    expect(wireRequests).not.toContain('/wire/scoped.jpg')
  })

  it('takes at most 50 distinct featured_image_urls in one request: items naming more fail, saying to split the batch, and are not fetched', async () => {
    const photo = await cameraJpeg({ seed: 105 })
    const articles = Array.from({ length: 52 }, (_, n) => {
      wireFiles.set(`/many/${n}.jpg`, photo)
      return { external_id: `MANY-${n}`, headline: `Item ${n}`, featured_image_url: `${wireUrl}/many/${n}.jpg` }
    })
    // Repeating a URL already named does not count again.
    articles.push({ external_id: 'MANY-again', headline: 'Same photo again', featured_image_url: `${wireUrl}/many/0.jpg` })
    const answer = await editor.post('/v1/articles/bulk', { articles })
    expect(answer.status, answer.text).toBe(200)
    expect(answer.body).toMatchObject({ created: 51, failed: 2 })
    for (const index of [50, 51]) {
      expect(answer.body.results[index]).toMatchObject({ status: 'failed', errors: [{ field: 'featured_image_url', message: expect.stringContaining('50') }] })
    }
    expect(answer.body.results[52].status).toBe('created')
    expect(wireRequests.filter((url) => url === '/many/50.jpg' || url === '/many/51.jpg')).toEqual([])
  })
})

describe('images in the public content API', () => {
  it('gives each image with signed renditions, featured first then body figures, and leaves out a withheld one while the article stays', async () => {
    const lead = await uploadAs(editorToken, await cameraJpeg({ seed: 110 }), 'lead.jpg', { alt_text: 'The harbour at dawn', caption: 'Dawn', credit: 'Jane Doe' })
    const figure = await uploadAs(editorToken, await cameraJpeg({ seed: 111, width: 800, height: 600 }), 'figure.jpg', { alt_text: 'A boat', expires_at: new Date(Date.now() + 3_600_000).toISOString() })
    const created = await editor.post('/v1/articles', {
      headline: 'Harbour reopens',
      featured_media_id: lead.media_id,
      body: `<p>Boats are back.</p><figure data-media-id="${figure.media_id}"><figcaption>A boat</figcaption></figure>`,
    })
    const id = created.body.article_id
    await editor.patch(`/v1/media/${lead.media_id}`, { focal_point: { x: 0.25, y: 0.75 } })
    await publish(id)

    const page = await content(`/content/v1/articles/${id}`)
    expect(page.status).toBe(200)
    const article = publicArticleSchema.strict().parse(await page.json())
    expect(page.headers.get('surrogate-key')!.split(' ')).toEqual(expect.arrayContaining([`article-${id}`, `media-${lead.media_id}`, `media-${figure.media_id}`]))
    expect(article.images.map((image) => [image.media_id, image.featured])).toEqual([
      [lead.media_id, true],
      [figure.media_id, false],
    ])
    const [first, second] = article.images
    expect(first).toMatchObject({ width: 1280, height: 768, alt: 'The harbour at dawn', caption: 'Dawn', credit: 'Jane Doe', focal_point: { x: 0.25, y: 0.75 } })
    expect(first!.srcset.split(', ').map((entry) => entry.split(' ')[1])).toEqual(['320w', '640w', '960w', '1280w', '1920w'])
    // An image narrower than 1,280 px is given at its widest offered width.
    expect(second).toMatchObject({ width: 640, height: 480, alt: 'A boat' })
    const rendition = await fetch(`${server.url}${first!.url}`)
    expect(rendition.status).toBe(200)
    expect(rendition.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect((await sharp(Buffer.from(await rendition.arrayBuffer())).metadata()).width).toBe(1280)
    const listed = await (await content('/content/v1/articles?limit=50')).json()
    expect(listed.items.find((item: { article_id: string }) => item.article_id === id).images).toEqual(article.images)

    // The licence ends: the next answers leave the figure out; the text and the lead image stay.
    await db.media.update({ where: { id: figure.media_id }, data: { expiresAt: new Date(Date.now() - 1_000) } })
    const after = await (await content(`/content/v1/articles/${id}`)).json()
    expect(after.images.map((image: { media_id: string }) => image.media_id)).toEqual([lead.media_id])
    expect(after.body).toContain('Boats are back.')
    expect((await fetch(`${server.url}${second!.url}`)).status).toBe(404)
  })

  it('a caption changed in the library reaches the cached list at once', async () => {
    const image = await uploadAs(editorToken, await cameraJpeg({ seed: 112 }), 'quay.jpg', { alt_text: 'The quay', caption: 'Before' })
    const id = (await editor.post('/v1/articles', { headline: 'Quay repaired', featured_media_id: image.media_id })).body.article_id
    await publish(id)
    const caption = async () => ((await (await content('/content/v1/articles?limit=50')).json()).items as { article_id: string; images: { caption: string }[] }[]).find((item) => item.article_id === id)!.images[0]!.caption
    // Asked twice, the list is kept in the response cache.
    expect(await caption()).toBe('Before')
    expect(await caption()).toBe('Before')
    expect((await editor.patch(`/v1/media/${image.media_id}`, { caption: 'After' })).status).toBe(200)
    expect(await caption()).toBe('After')
  })
})

describe('licence expiry', () => {
  it('withholds an expired image of a live article once: media.updated and the purge of its pages commit together, and its editors get a note; the desk lists it', async () => {
    const soon = new Date(Date.now() + 2 * 86_400_000)
    const image = await uploadAs(editorToken, await cameraJpeg({ seed: 120 }), 'agency.jpg', { alt_text: 'Agency photo', credit: 'Agency X', expires_at: soon.toISOString() })
    const later = await uploadAs(editorToken, await cameraJpeg({ seed: 121 }), 'later.jpg', { alt_text: 'Later', expires_at: new Date(Date.now() + 30 * 86_400_000).toISOString() })
    const live = (await editor.post('/v1/articles', { headline: 'Agency story', featured_media_id: image.media_id, body: `<figure data-media-id="${later.media_id}"></figure>` })).body.article_id
    const draft = (await editor.post('/v1/articles', { headline: 'Draft with the same photo', featured_media_id: image.media_id })).body.article_id
    await publish(live)

    // Within 7 days: on the desk of an editor, not yet withheld.
    const deskBefore = await readDesk(newsroom.actor('editor') as Parameters<typeof readDesk>[0])
    const listed = deskBefore.expiringLicences.items.find((item) => item.mediaId === image.media_id)
    expect(listed).toMatchObject({ filename: 'agency.jpg', credit: 'Agency X', expired: false, articles: [{ id: live, headline: 'Agency story' }] })
    expect(deskBefore.expiringLicences.items.some((item) => item.mediaId === later.media_id)).toBe(false)
    expect((await withholdExpiredMedia(new Date())).withheld.some((item) => item.mediaId === image.media_id)).toBe(false)

    // Past the licence's end.
    const afterExpiry = new Date(soon.getTime() + 60_000)
    const eventsBefore = await db.event.findMany({ where: { tenantId: newsroom.tenant.id }, select: { id: true } })
    const sweep = await withholdExpiredMedia(afterExpiry)
    expect(sweep.withheld.filter((item) => item.tenantId === newsroom.tenant.id)).toEqual([{ mediaId: image.media_id, tenantId: newsroom.tenant.id, articleIds: [live] }])
    const events = await db.event.findMany({ where: { tenantId: newsroom.tenant.id, id: { notIn: eventsBefore.map((event) => event.id) } }, orderBy: { id: 'asc' } })
    expect(events.map((event) => event.kind).sort()).toEqual(['content.purge_requested', 'media.updated'])
    const updated = events.find((event) => event.kind === 'media.updated')!
    const purge = events.find((event) => event.kind === 'content.purge_requested')!
    expect(updated.data).toMatchObject({ media_id: image.media_id, rights: { expires_at: soon.toISOString() } })
    expect((purge.data as { keys: string[] }).keys).toEqual(expect.arrayContaining([`media-${image.media_id}`, `article-${live}`, `list-${newsroom.tenant.id}`]))
    const notes = await db.articleNote.findMany({ where: { tenantId: newsroom.tenant.id, kind: 'media_withheld', body: { contains: image.media_id } } })
    expect(notes.map((note) => note.articleId)).toEqual([live])
    expect(notes[0]!.body).toContain('agency.jpg')
    expect(notes[0]!.body).toContain(soon.toISOString())
    const thread = await editor.get(`/v1/articles/${live}/notes`)
    expect(thread.body.items[0]).toMatchObject({ kind: 'media_withheld', author: null })
    expect(draft).toBeTruthy()

    // Once: a second sweep finds nothing more to do.
    expect((await withholdExpiredMedia(new Date(afterExpiry.getTime() + 60_000))).withheld.some((item) => item.mediaId === image.media_id)).toBe(false)
    expect(await db.articleNote.count({ where: { tenantId: newsroom.tenant.id, kind: 'media_withheld', body: { contains: image.media_id } } })).toBe(1)

    const deskAfter = await readDesk(newsroom.actor('editor') as Parameters<typeof readDesk>[0], afterExpiry)
    expect(deskAfter.expiringLicences.items.find((item) => item.mediaId === image.media_id)).toMatchObject({ expired: true })
    // A writer's desk lists only the images of their own articles.
    const writerDesk = await readDesk(newsroom.actor('writer') as Parameters<typeof readDesk>[0], afterExpiry)
    expect(writerDesk.expiringLicences.items.some((item) => item.mediaId === image.media_id)).toBe(false)
  })

  it('a withheld image stays withheld when a write re-sends its past licence end; a licence renewed into the future serves it again', async () => {
    const image = await uploadAs(editorToken, await cameraJpeg({ seed: 123 }), 'lapsed.jpg', { alt_text: 'Lapsed', expires_at: new Date(Date.now() + 1_500).toISOString() })
    const live = (await editor.post('/v1/articles', { headline: 'Lapsed licence story', featured_media_id: image.media_id })).body.article_id
    await publish(live)
    await new Promise((resolve) => setTimeout(resolve, 1_600))
    await withholdExpiredMedia(new Date())
    const record = (await editor.get(`/v1/media/${image.media_id}`)).body
    // A client (or the portal) saving the record as it read it, the past licence end included.
    const resent = await editor.patch(`/v1/media/${image.media_id}`, { caption: 'New caption', rights: { expires_at: record.rights.expires_at } }, { 'If-Match': `"${record.version}"` })
    expect(resent.status, resent.text).toBe(200)
    expect((await db.media.findUniqueOrThrow({ where: { id: image.media_id } })).withheldAt).not.toBeNull()
    expect((await (await content(`/content/v1/articles/${live}`)).json()).images).toEqual([])
    // Nothing to withhold again: no second note, no second media.updated from the sweep.
    expect((await withholdExpiredMedia(new Date())).withheld.some((item) => item.mediaId === image.media_id)).toBe(false)
    expect(await db.articleNote.count({ where: { tenantId: newsroom.tenant.id, kind: 'media_withheld', body: { contains: image.media_id } } })).toBe(1)

    const renewed = await editor.patch(`/v1/media/${image.media_id}`, { rights: { expires_at: new Date(Date.now() + 30 * 86_400_000).toISOString() } }, { 'If-Match': `"${resent.body.version}"` })
    expect(renewed.status, renewed.text).toBe(200)
    expect((await (await content(`/content/v1/articles/${live}`)).json()).images).toHaveLength(1)
  })

  it('runs as the withhold-expired-media cron function', async () => {
    const image = await uploadAs(editorToken, await cameraJpeg({ seed: 122 }), 'cron.jpg', { alt_text: 'Cron', expires_at: new Date(Date.now() + 2_000).toISOString() })
    const live = (await editor.post('/v1/articles', { headline: 'Cron story', featured_media_id: image.media_id })).body.article_id
    await publish(live)
    await new Promise((resolve) => setTimeout(resolve, 2_100))
    const engine = new InngestTestEngine({ function: withholdExpiredMediaFunction })
    const { result } = await engine.execute()
    expect(result).toMatchObject({ withheld: expect.any(Number) })
    expect((result as { withheld: number }).withheld).toBeGreaterThanOrEqual(1)
    expect((await db.media.findUniqueOrThrow({ where: { id: image.media_id } })).withheldAt).not.toBeNull()
    const page = await (await content(`/content/v1/articles/${live}`)).json()
    expect(page.images).toEqual([])
    expect(page.headline).toBe('Cron story')
  })
})

describe('blobs no record refers to', () => {
  it('the sweep-orphan-media cron function runs the sweep, leaving blobs younger than a day', async () => {
    const { mediaStore } = await import('../../lib/media/storage/media-storage.ts')
    const stray = `originals/${newsroom.tenant.id.toLowerCase()}/${'0'.repeat(64)}-med_stray`
    await mediaStore().putBuffer(stray, Buffer.from('left by a failed deletion'), 'image/jpeg')
    const engine = new InngestTestEngine({ function: sweepOrphanMediaFunction })
    const { result } = await engine.execute()
    expect(result).toMatchObject({ examined: expect.any(Number), removed: 0 })
    expect((result as { examined: number }).examined).toBeGreaterThanOrEqual(1)
    const kept = await mediaStore().get(stray)
    kept?.body.destroy()
    expect(kept).not.toBeNull()
  })

  it('a write a killed process left half-done (its .part file) goes with the sweep once a day old', async () => {
    const { mkdirSync, writeFileSync, existsSync } = await import('node:fs')
    const { sweepOrphanMediaBlobs, orphanGraceMs } = await import('../../lib/media/orphan-blobs.ts')
    const directory = path.join(process.env.MEDIA_DIR!, 'renditions', newsroom.tenant.id.toLowerCase(), '1'.repeat(64))
    mkdirSync(directory, { recursive: true })
    const part = path.join(directory, 'w320.jpeg.req_0killed.part')
    writeFileSync(part, 'half a rendition')
    expect((await sweepOrphanMediaBlobs()).removed.some((key) => key.endsWith('.part'))).toBe(false)
    await sweepOrphanMediaBlobs({ now: new Date(Date.now() + orphanGraceMs + 60_000) })
    expect(existsSync(part)).toBe(false)
  })
})
