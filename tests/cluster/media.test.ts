import { createHash } from 'node:crypto'
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createContentKey } from '../../lib/content/content-keys.ts'
import { db } from '../../lib/db/client.ts'
import { clusterLayout } from '../../scripts/cluster-layout.ts'
import { apiClient } from '../support/api-client.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { cameraJpeg, uploadForm } from '../support/media-images.ts'
import { pollFor } from './fault-support.ts'

// The media library in `npm run cluster`: the three instances share one media store (the
// cluster's Ceph RADOS Gateway, MEDIA_S3_* from scripts/cluster-layout.ts), and Varnish caches
// the renditions (deploy/content.vcl). The bucket is read here directly, with the S3 client, to
// see what the instances stored and what a deletion removed.

const layout = clusterLayout()
const env = layout.appEnv
const varnish = `http://127.0.0.1:${layout.ports.varnish}`
const haproxy = `http://127.0.0.1:${layout.ports.haproxy}`
const instance = (index: number) => `http://127.0.0.1:${layout.ports.apps[index]}`
const bucket = env.MEDIA_S3_BUCKET!
const s3 = new S3Client({
  endpoint: env.MEDIA_S3_ENDPOINT,
  region: env.MEDIA_S3_REGION,
  credentials: { accessKeyId: env.MEDIA_S3_ACCESS_KEY_ID!, secretAccessKey: env.MEDIA_S3_SECRET_ACCESS_KEY! },
  forcePathStyle: true,
  requestChecksumCalculation: 'WHEN_REQUIRED',
  responseChecksumValidation: 'WHEN_REQUIRED',
})

let newsroom: TestTenant
let other: TestTenant
let token: string
let otherToken: string
let contentKey: string

beforeAll(async () => {
  ;[newsroom, other] = await Promise.all([createTestTenant({ plan: 'enterprise' }), createTestTenant({ plan: 'enterprise' })])
  token = await newsroom.token(['media:read', 'media:write', 'articles:read', 'articles:write'], 'editor')
  otherToken = await other.token(['media:read', 'media:write'], 'editor')
  contentKey = (await createContentKey(newsroom.actor('admin'), 'Site')).key
})

afterAll(async () => {
  s3.destroy()
  await db.$disconnect()
})

type Answer = { status: number; headers: Headers; text: string; body: any }

async function upload(base: string, bearer: string, bytes: Buffer, fields: Record<string, string>): Promise<Answer> {
  const response = await fetch(`${base}/v1/media`, { method: 'POST', body: uploadForm(bytes, 'harbour.jpg', fields), headers: { Authorization: `Bearer ${bearer}` } })
  const text = await response.text()
  return { status: response.status, headers: response.headers, text, body: text ? JSON.parse(text) : undefined }
}

async function image(url: string, accept: string): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const response = await fetch(url, { headers: { Accept: accept } })
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) }
}

/** The keys under a prefix of the cluster's bucket, as the gateway lists them now. */
async function keysUnder(prefix: string): Promise<string[]> {
  const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }))
  return (page.Contents ?? []).map((entry) => entry.Key!).sort()
}

// Every key of these bytes' originals in the newsroom starts so; each record's is its own (hash and id).
const originalsOf = (tenant: TestTenant, sha256: string) => `originals/${tenant.tenant.id.toLowerCase()}/${sha256}`
const originalKey = (tenant: TestTenant, sha256: string, mediaId: string) => `${originalsOf(tenant, sha256)}-${mediaId}`
const renditionPrefix = (tenant: TestTenant, sha256: string) => `renditions/${tenant.tenant.id.toLowerCase()}/${sha256}/`
const chrome = 'image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8'
const firefox = 'image/avif,image/webp,*/*'

describe('media on the cluster: one RADOS Gateway shared by the instances, renditions through Varnish', () => {
  it('an image uploaded through one instance is read and rendered through the others; Varnish serves its renditions from its cache', async () => {
    const bytes = await cameraJpeg({ seed: 4701 })
    const sha256 = createHash('sha256').update(bytes).digest('hex')
    const created = await upload(instance(0), token, bytes, { alt_text: 'Boats in the harbour at dusk' })
    expect(created.status, created.text).toBe(201)
    const mediaId = created.body.media_id as string
    // Stored once, in the shared bucket, under its hash and its id.
    expect(await keysUnder(originalsOf(newsroom, sha256))).toEqual([originalKey(newsroom, sha256, mediaId)])

    const record = await apiClient(instance(1), token).get(`/v1/media/${mediaId}`)
    expect(record.status).toBe(200)
    expect(record.body).toMatchObject({ media_id: mediaId, sha256, bytes: bytes.length, width: 2000, height: 1200, alt_text: 'Boats in the harbour at dusk' })
    const original = await fetch(`${instance(2)}/v1/media/${mediaId}/original`, { headers: { Authorization: `Bearer ${token}` } })
    expect(original.status).toBe(200)
    expect(Buffer.from(await original.arrayBuffer()).equals(bytes)).toBe(true)

    // Rendition URLs name Varnish (MEDIA_PUBLIC_BASE_URL), the address a site's <img> loads.
    const link = (record.body.urls.renditions as { width: number; crop: string | null; url: string }[]).find((entry) => entry.width === 640 && entry.crop === null)!
    expect(link.url.startsWith(`${varnish}/content/v1/media/${mediaId}/`)).toBe(true)
    const path = new URL(link.url).pathname

    // Rendered by one instance and kept in the store; another instance serves the stored bytes.
    const rendered = await image(instance(1) + path, 'image/webp')
    expect(rendered.status).toBe(200)
    expect(rendered.headers.get('content-type')).toBe('image/webp')
    expect(rendered.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    const variant = path.split('/').at(-2)!
    expect(await keysUnder(renditionPrefix(newsroom, sha256))).toEqual([`${renditionPrefix(newsroom, sha256)}${variant}.webp`])
    const again = await image(instance(2) + path, 'image/webp')
    expect(again.status).toBe(200)
    expect(again.bytes.equals(rendered.bytes)).toBe(true)

    // Through Varnish: the first request for a format is a miss, the next ones hits (Age counts
    // the copy's seconds in the cache; X-Varnish names this request and the one that stored it).
    const first = await image(link.url, chrome)
    expect(first.status).toBe(200)
    expect(first.headers.get('content-type')).toBe('image/avif')
    expect(first.headers.get('x-cache')).toBe('MISS')
    const hit = await image(link.url, firefox)
    expect(hit.status).toBe(200)
    expect(hit.headers.get('x-cache')).toBe('HIT')
    expect(hit.headers.get('x-varnish')).toMatch(/^\d+ \d+$/)
    expect(Number(hit.headers.get('age'))).toBeGreaterThanOrEqual(0)
    expect(hit.headers.get('content-type')).toBe('image/avif')
    expect(hit.bytes.equals(first.bytes)).toBe(true)
    // Cache tags name the newsroom by id: for purges only.
    expect(hit.headers.get('surrogate-key')).toBeNull()
    expect(hit.headers.get('cache-tag')).toBeNull()
    // A client that takes only JPEG gets its own cached copy, never the AVIF one.
    expect((await image(link.url, 'image/jpeg')).headers.get('x-cache')).toBe('MISS')
    const jpeg = await image(link.url, 'image/jpeg,*/*;q=0.5')
    expect(jpeg.headers.get('x-cache')).toBe('HIT')
    expect(jpeg.headers.get('content-type')).toBe('image/jpeg')
    expect(await keysUnder(renditionPrefix(newsroom, sha256))).toEqual(['avif', 'jpeg', 'webp'].map((format) => `${renditionPrefix(newsroom, sha256)}${variant}.${format}`))
  })

  it('a published article gives the site its image through Varnish; a deletion, once nothing live shows the image, removes its blobs and Varnish stops serving it', async () => {
    const bytes = await cameraJpeg({ seed: 4702 })
    const sha256 = createHash('sha256').update(bytes).digest('hex')
    const media = (await upload(instance(0), token, bytes, { alt_text: 'The harbour master' })).body
    // Another newsroom holds the same bytes: its own record and its own copy.
    const theirs = await upload(instance(1), otherToken, bytes, { alt_text: 'Same photo, other paper' })
    expect(theirs.status, theirs.text).toBe(201)

    const editor = apiClient(haproxy, token)
    const article = (await editor.post('/v1/articles', { headline: 'Harbour master retires', featured_media_id: media.media_id, body: '<p>After 30 years.</p>' })).body
    for (const to_state of ['in-review', 'approved', 'published']) expect((await editor.post(`/v1/articles/${article.article_id}/transitions`, { to_state })).status).toBe(200)
    const page = await apiClient(varnish).get(`/content/v1/articles/${article.article_id}?key=${contentKey}`)
    expect(page.status).toBe(200)
    const [shown] = page.body.images as { url: string; srcset: string; alt: string }[]
    expect(shown!.alt).toBe('The harbour master')
    expect(shown!.url.startsWith(`${varnish}/content/v1/media/${media.media_id}/`)).toBe(true)
    expect((await image(shown!.url, firefox)).status).toBe(200)
    expect((await image(shown!.url, firefox)).headers.get('x-cache')).toBe('HIT')

    // While a published article shows it, it stays: the record, the blobs, the cached rendition.
    const refused = await apiClient(instance(1), token).delete(`/v1/media/${media.media_id}`)
    expect(refused.status, refused.text).toBe(409)
    expect(refused.body.code).toBe('media_in_use')
    expect(await keysUnder(originalsOf(newsroom, sha256))).toHaveLength(1)
    expect(await keysUnder(renditionPrefix(newsroom, sha256))).not.toHaveLength(0)

    expect((await editor.post(`/v1/articles/${article.article_id}/transitions`, { to_state: 'draft' })).status).toBe(200)
    const deleted = await apiClient(instance(2), token).delete(`/v1/media/${media.media_id}`)
    expect(deleted.status, deleted.text).toBe(204)
    expect(await keysUnder(originalsOf(newsroom, sha256))).toEqual([])
    expect(await keysUnder(renditionPrefix(newsroom, sha256))).toEqual([])
    for (const index of [0, 1, 2]) expect((await apiClient(instance(index), token).get(`/v1/media/${media.media_id}`)).status).toBe(404)
    // The purge goes out through the outbox after the answer: Varnish then asks the instances,
    // which no longer have the image.
    const gone = await pollFor(async () => {
      const answer = await image(shown!.url, firefox)
      return answer.status === 404 && answer
    }, 'Varnish to stop serving the deleted image', 30_000, 200)
    expect(gone.status).toBe(404)

    // The other newsroom's copy is its own: untouched.
    expect(await keysUnder(originalsOf(other, sha256))).toEqual([originalKey(other, sha256, theirs.body.media_id)])
    const kept = await fetch(`${instance(0)}/v1/media/${theirs.body.media_id}/original`, { headers: { Authorization: `Bearer ${otherToken}` } })
    expect(kept.status).toBe(200)
    expect(Buffer.from(await kept.arrayBuffer()).equals(bytes)).toBe(true)
  })
})
