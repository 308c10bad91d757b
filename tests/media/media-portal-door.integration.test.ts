import { existsSync, mkdtempSync, readdirSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { serveMediaUpload } from '../../lib/api/portal-media-routes.ts'
import { withRouteFailures } from '../../lib/api/failure.ts'
import { resetMediaStore } from '../../lib/media/storage/media-storage.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { db } from '../../lib/db/client.ts'
import { cameraJpeg, uploadForm } from '../support/media-images.ts'
import { nextAuthBrowser, nextAuthBrowserSecret } from '../support/next-auth-browser.ts'
import { stubEnv } from '../support/stub-env.ts'

// The portal's upload door (POST /api/media) takes what POST /v1/media takes, a JSON
// source_url included, from a signed-in member's browser (or anything holding its cookie): it
// must refuse what /v1 refuses with the same 4xx, and leave no temporary file behind.

let newsroom: TestTenant
let wire: Server
let wireUrl: string
let tempRoot: string
let photo: Buffer

beforeAll(async () => {
  tempRoot = mkdtempSync(path.join(os.tmpdir(), 'newsroom-portal-door-'))
  stubEnv({ MEDIA_DIR: mkdtempSync(path.join(os.tmpdir(), 'newsroom-media-portal-door-')), MEDIA_S3_ENDPOINT: '', MEDIA_S3_BUCKET: '', WEBHOOK_ALLOW_PRIVATE_URLS: 'true', NEXTAUTH_SECRET: nextAuthBrowserSecret, TMPDIR: tempRoot })
  resetMediaStore()
  newsroom = await createTestTenant()
  photo = await cameraJpeg({ width: 320, height: 200, seed: 47_003 })
  wire = createServer((_req, res) => void res.writeHead(200, { 'Content-Type': 'image/jpeg' }).end(photo))
  await new Promise<void>((resolve) => wire.listen(0, '127.0.0.1', resolve))
  wireUrl = `http://127.0.0.1:${(wire.address() as AddressInfo).port}`
}, 120_000)

afterAll(async () => {
  wire?.closeAllConnections()
  await new Promise((resolve) => wire?.close(resolve))
  vi.unstubAllEnvs()
  resetMediaStore()
})

// As app/api/media/route.ts serves it.
const door = withRouteFailures('media upload', (request: Request) => serveMediaUpload(request as Parameters<typeof serveMediaUpload>[0]))

describe('the portal upload door', () => {
  it("a source_url whose last segment is not valid percent-encoding is stored (as /v1 stores it), not a 500 leaving the fetched file in the temp directory", async () => {
    const browser = nextAuthBrowser({ userAgent: 'portal door test', address: '198.51.100.47' })
    expect(await browser.signIn(newsroom.users.writer.email, 'test-password')).toBe(true)
    const request = new Request('http://localhost/api/media', {
      method: 'POST',
      body: JSON.stringify({ source_url: `${wireUrl}/wire/bad%ZZname.jpg`, alt_text: 'Harbour at dusk' }),
      headers: { cookie: browser.cookieHeader(), 'x-newsroom-portal': '1', 'content-type': 'application/json' },
    })
    const answer = (await door(request)) as Response
    const text = await answer.text()
    expect(answer.status, text).toBeLessThan(500)
    const temp = path.join(tempRoot, 'newsroom-media')
    // Files only: each process writes under a directory of its own (p<pid>) there.
    expect(existsSync(temp) ? readdirSync(temp, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => entry.name) : [], 'temporary files left behind').toEqual([])
  })

  // The Media page tells an editor who cancels an upload, or whose connection drops, "Nothing was
  // stored." The browser cancels by closing the connection, which the server may see only after it
  // has the whole file: while it checks the image, or once it has kept it and is answering.
  describe('an upload whose page left before the answer reached it', () => {
    const signedIn = async () => {
      const browser = nextAuthBrowser({ userAgent: 'portal door test', address: '198.51.100.48' })
      expect(await browser.signIn(newsroom.users.writer.email, 'test-password')).toBe(true)
      return browser.cookieHeader()
    }
    const stored = (filename: string) => db.media.findMany({ where: { tenantId: newsroom.tenant.id, filename }, select: { id: true } })
    const multipart = async (bytes: Buffer, filename: string) => {
      const form = new Response(uploadForm(bytes, filename, { alt_text: 'Harbour at dusk' }))
      return { type: form.headers.get('content-type')!, body: new Uint8Array(await form.arrayBuffer()) }
    }
    const uploadRequest = (cookie: string, form: { type: string; body: ReadableStream<Uint8Array> | Uint8Array<ArrayBuffer> }, signal: AbortSignal) =>
      new Request('http://localhost/api/media', {
        method: 'POST',
        body: form.body,
        headers: { cookie, 'x-newsroom-portal': '1', 'content-type': form.type },
        signal,
        ...({ duplex: 'half' } as object),
      })

    it('gone while the image was being checked: nothing is kept', async () => {
      const cookie = await signedIn()
      const form = await multipart(await cameraJpeg({ width: 1600, height: 1200, seed: 47_010 }), 'left-while-checked.jpg')
      const leaving = new AbortController()
      // The whole file arrives; the connection closes just after, as the server starts on it.
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(form.body)
          controller.close()
        },
      })
      const reader = body.getReader()
      const watched = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { done, value } = await reader.read()
          if (done) {
            controller.close()
            setImmediate(() => leaving.abort())
          } else controller.enqueue(value)
        },
      })
      await door(uploadRequest(cookie, { type: form.type, body: watched }, leaving.signal)).catch(() => undefined)
      expect(await stored('left-while-checked.jpg')).toEqual([])
    })

    it('gone once it was kept: it stays (the library has it now), and the same bytes again find it', async () => {
      const cookie = await signedIn()
      const bytes = await cameraJpeg({ width: 640, height: 480, seed: 47_011 })
      const leaving = new AbortController()
      const answer = (await door(uploadRequest(cookie, await multipart(bytes, 'left-after-commit.jpg'), leaving.signal))) as Response
      expect(answer.status).toBe(201)
      leaving.abort()
      await new Promise((resolve) => setTimeout(resolve, 500))
      expect(await stored('left-after-commit.jpg')).toHaveLength(1)
      const again = (await door(uploadRequest(cookie, await multipart(bytes, 'left-after-commit-again.jpg'), new AbortController().signal))) as Response
      expect(again.status).toBe(200)
    })
  })
})
