import { existsSync, mkdtempSync, readdirSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createContentKey } from '../../lib/content/content-keys.ts'
import { db } from '../../lib/db/client.ts'
import { restoreRevision } from '../../lib/articles/article-revisions.ts'
import { withholdExpiredMedia } from '../../lib/media/licence-expiry.ts'
import { withImageSlot } from '../../lib/media/image-gate.ts'
import { mediaStore, resetMediaStore } from '../../lib/media/storage/media-storage.ts'
import { processSingleton } from '../../lib/process-singleton.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { cameraJpeg, uploadForm } from '../support/media-images.ts'
import { stubEnv } from '../support/stub-env.ts'
import { setupBackstopMs } from '../support/time-limits.ts'
import { holdLock, waitForLockWaiters } from '../support/row-locks.ts'

// What the media store and the shared cache hold when requests meet: a deletion and an upload of
// the same bytes, a deletion and a rendition being rendered, a deletion and a colleague's edit,
// a licence ending on an image whose renditions a cache still holds. Each meeting is made to
// happen (a held row lock, a held image slot, a store call parked), not hoped for.

let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let editor: ReturnType<typeof apiClient>
let editorToken: string
let mediaDir: string
let seed = 4700

beforeAll(async () => {
  mediaDir = mkdtempSync(path.join(os.tmpdir(), 'newsroom-media-store-races-'))
  // One image slot, so the test can hold it and park a rendition in the queue behind it; a purge
  // hook, so a change writes its content.purge_requested event.
  stubEnv({ MEDIA_DIR: mediaDir, MEDIA_S3_ENDPOINT: '', MEDIA_S3_BUCKET: '', MEDIA_IMAGE_CONCURRENCY: '1', CONTENT_PURGE_URL: 'http://127.0.0.1:9/purge' })
  resetMediaStore()
  ;[server, newsroom] = await Promise.all([startApiServer(), createTestTenant()])
  editorToken = await newsroom.token(['articles:read', 'articles:write', 'media:read', 'media:write'], 'editor')
  editor = apiClient(server.url, editorToken)
  await createContentKey(newsroom.actor('admin'), 'Public site')
}, setupBackstopMs)

afterAll(async () => {
  await server?.close()
  vi.unstubAllEnvs()
  resetMediaStore()
})

async function upload(bytes: Buffer, fields: Record<string, string> = { alt_text: 'A lighthouse in fog' }) {
  const response = await fetch(`${server.url}/v1/media`, { method: 'POST', body: uploadForm(bytes, 'photo.jpg', fields), headers: { Authorization: `Bearer ${editorToken}` } })
  const body = (await response.json()) as { media_id: string; version: number; sha256: string; urls: { renditions: { url: string; width: number; crop: string | null }[] } }
  return { status: response.status, ...body }
}

async function until(condition: () => boolean, what: string) {
  for (let tries = 0; tries < 400; tries++) {
    if (condition()) return
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error(`never happened: ${what}`)
}

/** The blobs the disk store holds under a prefix (files, recursively). */
function blobsUnder(prefix: string): string[] {
  const root = path.join(mediaDir, prefix)
  if (!existsSync(root)) return []
  return readdirSync(root, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name))
}

describe('deleting with If-Match', () => {
  it("a deletion parked behind a colleague's edit is refused 412 once the image changed, and the image stays", async () => {
    const image = await upload(await cameraJpeg({ seed: seed++ }))
    expect(image.status).toBe(201)
    // The colleague's PATCH in flight: it holds the row while the deletion, read at version 1, waits.
    const colleague = await holdLock('SELECT id FROM media WHERE id = $1 FOR UPDATE', [image.media_id])
    const deleting = editor.delete(`/v1/media/${image.media_id}`, { 'If-Match': `"${image.version}"` })
    await waitForLockWaiters(1)
    await colleague.query(`UPDATE media SET caption = 'Keepers at the lamp, 1931 (credit corrected)', version = version + 1 WHERE id = $1`, [image.media_id])
    await colleague.release()
    const deleted = await deleting
    expect(deleted.status, `DELETE If-Match "${image.version}" of an image now at version ${image.version + 1}: ${deleted.text}`).toBe(412)
    expect((await editor.get(`/v1/media/${image.media_id}`)).status).toBe(200)
  })
})

describe('a deletion meeting an upload of the same bytes', () => {
  it('the new record keeps its original: the deletion removing its blobs after its commit does not take the re-uploaded bytes with them', async () => {
    const bytes = await cameraJpeg({ seed: seed++ })
    const first = await upload(bytes)
    expect(first.status).toBe(201)
    // The store is slow to delete (an S3 gateway under load): the deletion has committed and is
    // removing the blobs when an editor, seeing the photo gone, uploads it again.
    const store = mediaStore()
    const realDeletePrefix = store.deletePrefix
    let reached!: () => void
    const deletionReachedStore = new Promise<void>((resolve) => (reached = resolve))
    let release!: () => void
    const parked = new Promise<void>((resolve) => (release = resolve))
    store.deletePrefix = async (prefix) => {
      reached()
      await parked
      return realDeletePrefix(prefix)
    }
    let again: Awaited<ReturnType<typeof upload>>
    try {
      const deleting = editor.delete(`/v1/media/${first.media_id}`)
      await deletionReachedStore
      again = await upload(bytes, { alt_text: 'The lighthouse, uploaded again' })
      expect(again.status).toBe(201)
      release()
      expect((await deleting).status).toBe(204)
    } finally {
      release()
      store.deletePrefix = realDeletePrefix
    }
    const original = await fetch(`${server.url}/v1/media/${again.media_id}/original`, { headers: { Authorization: `Bearer ${editorToken}` } })
    expect(original.status, `the original of ${again.media_id}, a record the library lists`).toBe(200)
    expect(Buffer.from(await original.arrayBuffer()).equals(bytes)).toBe(true)
  })
})

describe('a deletion meeting a rendition being rendered', () => {
  it('the rendition finished after the deletion is not served (nor cached for a year), and leaves no blob in the store', async () => {
    const image = await upload(await cameraJpeg({ seed: seed++ }))
    expect(image.status).toBe(201)
    const link = image.urls.renditions.find((rendition) => rendition.crop === null)!
    const gate = processSingleton('media image gate', () => ({ running: 0, waiting: [] as (() => void)[] }))
    // Another image being rendered holds the instance's one slot: this rendition waits its turn.
    let releaseSlot!: () => void
    const slotHeld = new Promise<void>((resolve) => (releaseSlot = resolve))
    const busy = withImageSlot(() => slotHeld)
    try {
      const rendering = fetch(`${server.url}${link.url}`, { headers: { Accept: 'image/jpeg' } })
      await until(() => gate.waiting.length >= 1, 'the rendition waited for an image slot')
      // Meanwhile the image is deleted (perhaps for legal reasons): its record, its purge, its blobs.
      const deleted = await editor.delete(`/v1/media/${image.media_id}`)
      expect(deleted.status, deleted.text).toBe(204)
      releaseSlot()
      await busy
      const served = await rendering
      const cacheControl = served.headers.get('cache-control')
      await served.arrayBuffer()
      expect(`${served.status} ${cacheControl}`, 'a deleted image served to the shared cache after its purge').toMatch(/^404 /)
    } finally {
      releaseSlot()
    }
    expect(blobsUnder(`renditions/${newsroom.tenant.id.toLowerCase()}/${image.sha256}`), 'renditions written after the deletion removed the blobs').toEqual([])
  })
})

describe('licence expiry of an image whose renditions a cache holds', () => {
  it('the renditions of an image taken out of its story are purged when its licence ends, as they were public and are cached for a year', async () => {
    // The licence ends well after the story is published and the photo swapped (a 3 s licence ran
    // out before the publication on a loaded machine, which then refused it); the sweep is then run
    // as of a moment after its end, as the minute's sweep would be.
    const expiresAt = new Date(Date.now() + 10 * 60_000)
    const image = await upload(await cameraJpeg({ seed: seed++ }), { alt_text: 'Agency photo', credit: 'Agency X', expires_at: expiresAt.toISOString() })
    const replacement = await upload(await cameraJpeg({ seed: seed++ }), { alt_text: 'Staff photo' })
    const created = await editor.post('/v1/articles', { headline: 'Harbour reopens', featured_media_id: image.media_id })
    const articleId = created.body.article_id as string
    for (const to_state of ['in-review', 'approved', 'published']) expect((await editor.post(`/v1/articles/${articleId}/transitions`, { to_state })).status).toBe(200)
    // Readers' browsers (and the cache in front) load the agency photo's rendition: a public
    // answer the shared cache keeps (until the licence's end at most, which only caches that honour
    // max-age respect; the shared cache is purged).
    const link = image.urls.renditions.find((rendition) => rendition.crop === null)!
    const served = await fetch(`${server.url}${link.url}`)
    expect(served.status).toBe(200)
    expect(served.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/)
    // The desk swaps in a staff photo; the agency photo stays in the library, its URL in old pages,
    // feeds and search engines, and in the cache.
    expect((await editor.patch(`/v1/articles/${articleId}`, { featured_media_id: replacement.media_id })).status).toBe(200)
    // A reader on an old copy of the page loads it again after the swap: the cache holds it anew.
    expect((await fetch(`${server.url}${link.url}`)).status).toBe(200)
    const eventsBefore = await db.event.findMany({ where: { tenantId: newsroom.tenant.id }, select: { id: true } })
    await withholdExpiredMedia(new Date(expiresAt.getTime() + 1_000))
    const purges = await db.event.findMany({ where: { tenantId: newsroom.tenant.id, kind: 'content.purge_requested', id: { notIn: eventsBefore.map((event) => event.id) } } })
    const keys = purges.flatMap((event) => (event.data as { keys: string[] }).keys)
    expect(keys, 'no purge of the expired image: the cache serves its renditions for the rest of the year').toContain(`media-${image.media_id}`)
  })
})

describe("the library's unused filter in a newsroom with a long archive", () => {
  it('answers when more images are in use than PostgreSQL takes bind parameters (an archive of years of stories)', async () => {
    const image = await upload(await cameraJpeg({ seed: seed++ }), { alt_text: 'Unused photo', caption: 'archive-unused-probe' })
    const created = await editor.post('/v1/articles', { headline: 'Archive' })
    expect(created.status).toBe(201)
    // Years of stories: 40,000 images in use (one draft stands for them; the filter reads media_ids).
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL })
    await client.connect()
    try {
      await client.query(`UPDATE articles SET media_ids = (SELECT array_agg('med_archive' || g) FROM generate_series(1, 40000) g) WHERE id = $1`, [created.body.article_id])
    } finally {
      await client.end()
    }
    const unused = await editor.get('/v1/media?unused=true&q=archive-unused-probe')
    expect(unused.status, unused.text.slice(0, 400)).toBe(200)
    expect(unused.body.items.map((item: { media_id: string }) => item.media_id)).toEqual([image.media_id])
    const used = await editor.get('/v1/media?unused=false&q=archive-unused-probe')
    expect(used.status, used.text.slice(0, 400)).toBe(200)
    expect(used.body.items).toEqual([])
  })
})

/** A JPEG whose IPTC caption (2:120, in a Photoshop APP13 segment) is `caption`, bytes as given. */
async function jpegWithIptcCaption(caption: Buffer): Promise<Buffer> {
  const base = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#336699' } }).jpeg().toBuffer()
  const iptc = Buffer.concat([Buffer.from([0x1c, 0x02, 0x78, caption.length >> 8, caption.length & 255]), caption])
  const size = Buffer.alloc(4)
  size.writeUInt32BE(iptc.length)
  let resource = Buffer.concat([Buffer.from('8BIM', 'latin1'), Buffer.from([0x04, 0x04, 0, 0]), size, iptc])
  if (resource.length % 2) resource = Buffer.concat([resource, Buffer.from([0])])
  const payload = Buffer.concat([Buffer.from('Photoshop 3.0\u0000', 'latin1'), resource])
  const length = Buffer.alloc(2)
  length.writeUInt16BE(payload.length + 2)
  return Buffer.concat([base.subarray(0, 2), Buffer.from([0xff, 0xed]), length, payload, base.subarray(2)])
}

describe('metadata written in the file', () => {
  it('a wire photo whose IPTC caption holds a NUL byte is kept, its caption without it (PostgreSQL text cannot hold one): never a 500', async () => {
    const bytes = await jpegWithIptcCaption(Buffer.from('Harbour at dusk\u0000 as the ferry leaves', 'latin1'))
    const uploaded = await upload(bytes, { alt_text: 'The ferry leaving the harbour' })
    expect(uploaded.status, JSON.stringify(uploaded)).toBe(201)
    expect((uploaded as unknown as { caption: string }).caption).toBe('Harbour at dusk as the ferry leaves')
  })
})

describe('the content API at the instant a licence ends', () => {
  it("the article list stops showing the image at its licence's end, as docs/media.md says, not when its cached answer expires", async () => {
    const key = (await createContentKey(newsroom.actor('admin'), 'Instant site')).key
    const expiresAt = new Date(Date.now() + 4_000)
    const image = await upload(await cameraJpeg({ seed: seed++ }), { alt_text: 'Licensed for the morning', expires_at: expiresAt.toISOString() })
    const created = await editor.post('/v1/articles', { headline: 'Morning ferry', featured_media_id: image.media_id })
    for (const to_state of ['in-review', 'approved', 'published']) expect((await editor.post(`/v1/articles/${created.body.article_id}/transitions`, { to_state })).status).toBe(200)
    const shown = async () => {
      const page = (await (await fetch(`${server.url}/content/v1/articles?limit=50`, { headers: { 'X-Content-Key': key } })).json()) as { items: { article_id: string; images: { media_id: string }[] }[] }
      return page.items.find((item) => item.article_id === created.body.article_id)?.images.map((item) => item.media_id)
    }
    // The site asks again and again (the list is kept from its second asking).
    for (let ask = 0; ask < 3; ask++) expect(await shown()).toEqual([image.media_id])
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt.getTime() - Date.now()) + 300))
    // No sweep has run yet (it runs each minute): the rule itself must hold.
    expect(await shown(), 'the list still shows an image whose licence has ended').toEqual([])
  })
})

describe('restoring a revision after one of its images was deleted', () => {
  it("puts the revision's text back without the deleted image's figure, instead of refusing the whole restore", async () => {
    const image = await upload(await cameraJpeg({ seed: seed++ }))
    const created = await editor.post('/v1/articles', { headline: 'Storm night', body: `<p>The first account of the storm, as the night editor wrote it.</p><figure data-media-id="${image.media_id}"><figcaption>The pier</figcaption></figure>` })
    expect(created.status, created.text).toBe(201)
    const articleId = created.body.article_id as string
    // A colleague rewrites it (and drops the photo); the photo is deleted from the library.
    expect((await editor.patch(`/v1/articles/${articleId}`, { body: '<p>A shorter rewrite.</p>' })).status).toBe(200)
    expect((await editor.delete(`/v1/media/${image.media_id}`)).status).toBe(204)
    const revisions = await editor.get(`/v1/articles/${articleId}/revisions`)
    const first = (revisions.body.items as { revision_id: string; body: string | null }[]).find((revision) => revision.body?.includes('first account') ?? true)
    expect(first).toBeTruthy()
    // The night editor's text is wanted back (History → Restore).
    const restored = await restoreRevision(newsroom.actor('editor'), articleId, first!.revision_id).then(
      (article) => ({ ok: true as const, body: (article as unknown as { body?: string | null }).body ?? '' }),
      (error: unknown) => ({ ok: false as const, error: String((error as Error).message) }),
    )
    expect(restored.ok, `the revision cannot be restored at all: ${JSON.stringify(restored)}`).toBe(true)
    const now = await editor.get(`/v1/articles/${articleId}`)
    expect(now.body.body).toContain('The first account of the storm')
    expect(now.body.body).not.toContain(image.media_id)
  })
})
