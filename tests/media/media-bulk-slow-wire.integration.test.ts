import { mkdtempSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { db } from '../../lib/db/client.ts'
import { resetMediaStore } from '../../lib/media/storage/media-storage.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { cameraJpeg, uploadForm } from '../support/media-images.ts'
import { stubEnv } from '../support/stub-env.ts'

// break47b: bulk imports naming hostile or slow wire photos, on an instance with one large-body
// slot (LARGE_BODY_CONCURRENCY=1): the import's wire fetches must not hold it while they wait.
let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let token: string
let editor: ReturnType<typeof apiClient>
let wire: Server
let wireUrl: string
const wireHits: string[] = []
const wireRoutes = new Map<string, (res: import('node:http').ServerResponse) => void>()

beforeAll(async () => {
  stubEnv({ MEDIA_DIR: mkdtempSync(path.join(os.tmpdir(), 'newsroom-media-slow-')), MEDIA_S3_ENDPOINT: '', MEDIA_S3_BUCKET: '', WEBHOOK_ALLOW_PRIVATE_URLS: 'true', CONTENT_PURGE_URL: undefined, LARGE_BODY_CONCURRENCY: '1', MEDIA_FETCH_TIMEOUT_MS: '2000' })
  resetMediaStore()
  ;[server, newsroom] = await Promise.all([startApiServer(), createTestTenant()])
  token = await newsroom.token(['media:read', 'media:write', 'articles:read', 'articles:write'], 'editor')
  editor = apiClient(server.url, token)
  // Answers nothing: every fetch runs to MEDIA_FETCH_TIMEOUT_MS.
  wire = createServer((req, res) => {
    wireHits.push(req.url ?? '')
    const serve = wireRoutes.get((req.url ?? '').split('?')[0]!)
    if (serve) serve(res)
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

describe('hostile featured_image_urls', () => {
  it('redirect loops, redirects to other schemes, credentials and non-URLs fail their items with a reason, never a 500', async () => {
    wireRoutes.set('/loop.jpg', (res) => res.writeHead(302, { Location: '/loop.jpg' }).end())
    wireRoutes.set('/to-file.jpg', (res) => res.writeHead(302, { Location: 'file:///etc/passwd' }).end())
    wireRoutes.set('/to-data.jpg', (res) => res.writeHead(301, { Location: 'data:image/jpeg;base64,AAAA' }).end())
    const urls = [`${wireUrl}/loop.jpg`, `${wireUrl}/to-file.jpg`, `${wireUrl}/to-data.jpg`, `http://user:pw@127.0.0.1:${new URL(wireUrl).port}/x.jpg`, 'not a url', 'javascript:alert(1)']
    const answer = await editor.post('/v1/articles/bulk', { articles: urls.map((url, i) => ({ headline: `Hostile ${i}`, featured_image_url: url })) })
    expect(answer.status, answer.text).toBeLessThan(500)
    if (answer.status === 200) {
      for (const result of answer.body.results) {
        expect(result.status, JSON.stringify(result)).toBe('failed')
        expect(result.errors[0].field).toBe('featured_image_url')
        expect(result.errors[0].message).not.toMatch(/try again later/)
      }
    }
  }, 60_000)

  it('an item naming both featured_media_id and featured_image_url is not silently given the other image', async () => {
    const chosen = await fetch(`${server.url}/v1/media`, { method: 'POST', body: uploadForm(await cameraJpeg({ seed: 951 }), 'chosen.jpg', { alt_text: 'Chosen' }), headers: { Authorization: `Bearer ${token}` } })
    const chosenId = ((await chosen.json()) as { media_id: string }).media_id
    const wireBytes = await cameraJpeg({ seed: 952 })
    wireRoutes.set('/other.jpg', (res) => res.writeHead(200, { 'Content-Type': 'image/jpeg', 'Content-Length': wireBytes.length }).end(wireBytes))
    const answer = await editor.post('/v1/articles/bulk', { articles: [{ headline: 'Both', featured_media_id: chosenId, featured_image_url: `${wireUrl}/other.jpg` }] })
    const result = answer.body.results[0]
    // Either the item is refused as ambiguous, or the image the sender chose by id is kept.
    if (result.status !== 'failed') expect(result.featured_media_id, 'the featured_media_id sent was replaced by the fetched URL').toBe(chosenId)
  }, 60_000)
})

describe('a redirect that never ends its body', () => {
  it('is not read forever after the import has answered (the deadline covers every hop)', async () => {
    const okBytes = await cameraJpeg({ seed: 953 })
    wireRoutes.set('/ok-after-redirect.jpg', (res) => res.writeHead(200, { 'Content-Type': 'image/jpeg', 'Content-Length': okBytes.length }).end(okBytes))
    let sent = 0
    let open = true
    wireRoutes.set('/endless-redirect.jpg', (res) => {
      res.writeHead(302, { Location: '/ok-after-redirect.jpg', 'Content-Type': 'text/plain' })
      const chunk = Buffer.alloc(64 * 1024, 'x')
      const pump = () => {
        if (!open || res.destroyed) return
        if (res.write(chunk)) { sent += chunk.length; setImmediate(pump) } else res.once('drain', pump)
      }
      res.on('close', () => (open = false))
      pump()
    })
    const answer = await editor.post('/v1/articles/bulk', { articles: [{ headline: 'Endless redirect', featured_image_url: `${wireUrl}/endless-redirect.jpg` }] })
    expect(answer.status, answer.text).toBe(200)
    // MEDIA_FETCH_TIMEOUT_MS is 2 s here: well past it, the redirect's body must no longer be read.
    await new Promise((resolve) => setTimeout(resolve, 4_000))
    const before = sent
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    const stillOpen = open
    open = false
    expect({ stillOpen, readInLastSecondMB: Math.round((sent - before) / 1e6), totalMB: Math.round(sent / 1e6) }).toMatchObject({ stillOpen: false, readInLastSecondMB: 0 })
  }, 60_000)
})

describe('repeated and redirecting URLs naming one photo', () => {
  it('four URLs (two redirecting) fetched at once for the same bytes make one record, and no item fails', async () => {
    const bytes = await cameraJpeg({ seed: 954 })
    wireRoutes.set('/same.jpg', (res) => setTimeout(() => res.writeHead(200, { 'Content-Type': 'image/jpeg', 'Content-Length': bytes.length }).end(bytes), 200))
    wireRoutes.set('/hop-a.jpg', (res) => res.writeHead(301, { Location: '/same.jpg?via=a' }).end())
    wireRoutes.set('/hop-b.jpg', (res) => res.writeHead(307, { Location: `${wireUrl}/same.jpg?via=b` }).end())
    const urls = [`${wireUrl}/same.jpg`, `${wireUrl}/same.jpg?copy=1`, `${wireUrl}/hop-a.jpg`, `${wireUrl}/hop-b.jpg`]
    const articles = Array.from({ length: 40 }, (_, i) => ({ headline: `Same ${i}`, featured_image_url: urls[i % urls.length] }))
    const answer = await editor.post('/v1/articles/bulk', { articles })
    expect(answer.status, answer.text).toBe(200)
    expect(answer.body.failed, JSON.stringify(answer.body.results.filter((r: any) => r.status === 'failed').slice(0, 2))).toBe(0)
    expect(new Set(answer.body.results.map((r: any) => r.featured_media_id)).size).toBe(1)
    expect(wireHits.filter((hit) => hit.startsWith('/same.jpg')).length).toBe(4)
  }, 60_000)
})

describe('slow wire photos and the large-body slot', () => {
  /** Wire photos whose answers wait until the test lets them go (or the connection is closed). */
  function heldPhotos(prefix: string, bytes: Buffer) {
    const held: (() => void)[] = []
    let open = true
    wireRoutes.set(prefix, (res) => {
      const send = () => void (!res.destroyed && res.writeHead(200, { 'Content-Type': 'image/jpeg', 'Content-Length': bytes.length }).end(bytes))
      if (open) held.push(send)
      else send()
    })
    return {
      held,
      releaseAll() {
        open = false
        for (const send of held.splice(0)) send()
      },
    }
  }

  it('an upload is answered while a bulk import is still fetching its slow featured_image_urls (they do not hold the only slot)', async () => {
    vi.stubEnv('MEDIA_FETCH_TIMEOUT_MS', '30000')
    try {
      const bytes = await cameraJpeg({ width: 400, height: 300, seed: 961 })
      const urls = Array.from({ length: 6 }, (_, i) => `${wireUrl}/held-${i}.jpg`)
      const wires = urls.map((url) => heldPhotos(new URL(url).pathname, bytes))
      const releaseAll = () => wires.forEach((wireFile) => wireFile.releaseAll())
      const order: string[] = []
      const importing = editor.post('/v1/articles/bulk', { articles: urls.map((url, i) => ({ headline: `Held ${i}`, featured_image_url: url })) }).finally(() => order.push('import answered'))
      // The import is fetching: its first photos are being waited for.
      await vi.waitFor(() => expect(wires.filter((wireFile) => wireFile.held.length > 0).length).toBeGreaterThan(0), { timeout: 20_000, interval: 20 })

      // A backstop only, so that an upload stuck behind the import does not keep this test for
      // the fetches' 30 s: the order of the answers is what is asserted.
      const backstop = setTimeout(() => {
        order.push('wire released by the backstop')
        releaseAll()
      }, 8_000)
      const uploading = fetch(`${server.url}/v1/media`, { method: 'POST', body: uploadForm(await cameraJpeg({ width: 400, height: 300, seed: 962 }), 'unrelated.jpg'), headers: { Authorization: `Bearer ${token}` } })
      const uploaded = await uploading
      order.push('upload answered')
      expect(uploaded.status, await uploaded.text()).toBe(201)
      clearTimeout(backstop)
      expect(order).toEqual(['upload answered'])

      releaseAll()
      const imported = await importing
      expect(imported.status, imported.text).toBe(200)
      expect(imported.body.failed, JSON.stringify(imported.body.results.filter((r: any) => r.status === 'failed').slice(0, 2))).toBe(0)
      expect(order).toEqual(['upload answered', 'import answered'])
    } finally {
      vi.stubEnv('MEDIA_FETCH_TIMEOUT_MS', '2000')
    }
  }, 90_000)

  it('past the import\'s deadline for its fetches, the items still waiting fail naming their URL and that it timed out, and nothing of theirs is stored', async () => {
    vi.stubEnv('MEDIA_FETCH_TIMEOUT_MS', '4000')
    vi.stubEnv('MEDIA_IMPORT_FETCH_DEADLINE_MS', '1500')
    const bytes = await cameraJpeg({ width: 400, height: 300, seed: 963 })
    const urls = Array.from({ length: 7 }, (_, i) => `${wireUrl}/never-${i}.jpg`)
    const wires = urls.map((url) => heldPhotos(new URL(url).pathname, bytes))
    const before = await db.media.count({ where: { tenantId: newsroom.tenant.id } })
    try {
      const answer = await editor.post('/v1/articles/bulk', { articles: urls.map((url, i) => ({ headline: `Never ${i}`, featured_image_url: url })) })
      expect(answer.status, answer.text).toBe(200)
      expect(answer.body.failed).toBe(urls.length)
      for (const [i, result] of (answer.body.results as any[]).entries()) {
        expect(result.status).toBe('failed')
        expect(result.errors).toHaveLength(1)
        expect(result.errors[0].field).toBe('featured_image_url')
        // Those being fetched at the deadline and those that had not started alike.
        expect(result.errors[0].message).toContain(urls[i])
        expect(result.errors[0].message).toMatch(/timed out/)
        expect(result.errors[0].message).toMatch(/nothing .*stored/i)
      }
      // The photos sent after the deadline are not taken either.
      for (const wireFile of wires) wireFile.releaseAll()
      await new Promise((resolve) => setTimeout(resolve, 300))
      expect(await db.media.count({ where: { tenantId: newsroom.tenant.id } })).toBe(before)
    } finally {
      for (const wireFile of wires) wireFile.releaseAll()
      vi.stubEnv('MEDIA_FETCH_TIMEOUT_MS', '2000')
      vi.stubEnv('MEDIA_IMPORT_FETCH_DEADLINE_MS', undefined)
    }
  }, 90_000)
})
