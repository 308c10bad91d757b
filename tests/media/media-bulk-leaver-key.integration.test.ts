import { mkdtempSync } from 'node:fs'
import { createServer, request as httpRequest, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { db } from '../../lib/db/client.ts'
import { resetMediaStore } from '../../lib/media/storage/media-storage.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { cameraJpeg } from '../support/media-images.ts'
import { stubEnv } from '../support/stub-env.ts'

// A bulk import with an Idempotency-Key whose client leaves while its wire photos are fetched
// (outside its large-body slot) or while it waits for the slot: the import is done once, the
// key answers a retry, and the slot is the instance's again.
let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let token: string
let wire: Server
let wireUrl: string
let photo: Buffer

beforeAll(async () => {
  stubEnv({ MEDIA_DIR: mkdtempSync(path.join(os.tmpdir(), 'newsroom-media-bulk-leaver-')), MEDIA_S3_ENDPOINT: '', MEDIA_S3_BUCKET: '', WEBHOOK_ALLOW_PRIVATE_URLS: 'true', CONTENT_PURGE_URL: undefined, LARGE_BODY_CONCURRENCY: '1' })
  resetMediaStore()
  ;[server, newsroom] = await Promise.all([startApiServer(), createTestTenant()])
  token = await newsroom.token(['media:read', 'media:write', 'articles:read', 'articles:write'], 'editor')
  photo = await cameraJpeg({ width: 320, height: 240, seed: 63_900 })
  wire = createServer((_req, res) => void setTimeout(() => res.writeHead(200, { 'Content-Type': 'image/jpeg' }).end(photo), 800))
  await new Promise<void>((resolve) => wire.listen(0, '127.0.0.1', resolve))
  wireUrl = `http://127.0.0.1:${(wire.address() as AddressInfo).port}`
}, 120_000)

afterAll(async () => {
  wire?.closeAllConnections()
  await Promise.all([server?.close(), wire && new Promise((resolve) => wire.close(resolve))])
  vi.unstubAllEnvs()
  resetMediaStore()
})

function post(body: string, key: string, leaveAfterMs?: number) {
  const url = new URL(`${server.url}/v1/articles/bulk`)
  const request = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)), 'Idempotency-Key': key } })
  const answer = new Promise<{ status: number; text: string }>((resolve) => {
    request.on('response', (response) => {
      let text = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (text += chunk))
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text }))
    })
    request.on('error', () => resolve({ status: 0, text: '' }))
  })
  request.end(body)
  if (leaveAfterMs !== undefined) setTimeout(() => request.destroy(), leaveAfterMs)
  return answer
}
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('a keyed bulk import whose client left', () => {
  it('runs once, its key answers the retry, and the slot is free again', async () => {
    const items = (tag: string) => JSON.stringify({ articles: [0, 1, 2].map((i) => ({ headline: `Leaver ${tag} ${i}`, featured_image_url: `${wireUrl}/${tag}-${i}.jpg` })) })
    // Left while its photos were fetched; another keyed import waits behind it and leaves too.
    const first = post(items('a'), 'bulk-leaver-a', 300)
    await pause(50)
    const second = post(items('b'), 'bulk-leaver-b', 150)
    await Promise.all([first, second])
    await pause(3000)
    for (const tag of ['a', 'b']) {
      const retry = await post(items(tag), `bulk-leaver-${tag}`)
      expect(retry.status, `${tag}: ${retry.text}`).toBe(200)
      const count = await db.article.count({ where: { tenantId: newsroom.tenant.id, headline: { startsWith: `Leaver ${tag} ` } } })
      expect(count, tag).toBe(3)
    }
  }, 60_000)
})
