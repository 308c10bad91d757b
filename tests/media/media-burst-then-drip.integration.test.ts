import { mkdtempSync } from 'node:fs'
import { request as httpRequest, type ClientRequest } from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { resetMediaStore } from '../../lib/media/storage/media-storage.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { cameraJpeg, uploadForm } from '../support/media-images.ts'
import { stubEnv } from '../support/stub-env.ts'

// The byte-every-so-often client of media-stalled-bulk-import, with a burst first: the average
// is taken since the body began, so the burst's bytes pay for the drip that follows, a second of
// slot per KB (at the defaults, 300 KB keeps the slot for Node's five-minute requestTimeout).
let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let articlesToken: string
let mediaToken: string

beforeAll(async () => {
  stubEnv({ MEDIA_DIR: mkdtempSync(path.join(os.tmpdir(), 'newsroom-media-burst-drip-')), MEDIA_S3_ENDPOINT: '', MEDIA_S3_BUCKET: '', LARGE_BODY_CONCURRENCY: '1', MEDIA_UPLOAD_IDLE_MS: '500' })
  resetMediaStore()
  ;[server, newsroom] = await Promise.all([startApiServer(), createTestTenant()])
  articlesToken = await newsroom.token(['articles:write'])
  mediaToken = await newsroom.token(['media:read', 'media:write'], 'editor')
}, 120_000)

afterAll(async () => {
  await server?.close()
  vi.unstubAllEnvs()
  resetMediaStore()
})

function send(pathname: string, token: string, type: string, length: number): { request: ClientRequest; answer: Promise<{ status: number; text: string }> } {
  const url = new URL(`${server.url}${pathname}`)
  const request = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': type, 'Content-Length': String(length) } })
  const answer = new Promise<{ status: number; text: string }>((resolve) => {
    request.on('response', (response) => {
      let text = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (text += chunk))
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text }))
    })
    request.on('error', () => resolve({ status: 0, text: '' }))
  })
  return { request, answer }
}

describe('a bulk import that bursts, then drips a byte inside the stall limit', () => {
  it('is let go within a few stall limits, so the next upload gets the slot', async () => {
    const dripping = send('/v1/articles/bulk', articlesToken, 'application/json', 1_000_000)
    // 20 KB of whitespace-padded JSON at once: 20 s of "average over 1 KB/s" at a 0.5 s stall limit.
    dripping.request.write('{"articles":[' + ' '.repeat(20 * 1024))
    const timer = setInterval(() => dripping.request.write(' '), 300)
    await new Promise((resolve) => setTimeout(resolve, 200))

    const form = new Response(uploadForm(await cameraJpeg({ width: 320, height: 240, seed: 63_651 }), 'after-burst-drip.jpg'))
    const body = Buffer.from(await form.arrayBuffer())
    const upload = send('/v1/media', mediaToken, form.headers.get('content-type')!, body.length)
    upload.request.end(body)
    const outcome = await Promise.race([upload.answer, new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), 8_000))])
    clearInterval(timer)
    dripping.request.destroy()
    await upload.answer
    expect(outcome === 'still waiting' ? outcome : outcome.status).toBe(201)
  }, 60_000)
})
