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
import { cameraJpeg } from '../support/media-images.ts'
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
})
