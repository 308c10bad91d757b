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

// break66: drip clients are let go once they hold a large-body slot (body-pace.ts), but nothing
// watches them while they wait in the slot's line (32 places, concurrency-slots.ts). One burst of
// silent requests (headers, a byte, then nothing) fills the slot and the line; each is let go only
// once its turn comes and a stall limit has passed, so the line empties one stall limit per slot
// at a time. At the defaults (2 slots, 30 s) 34 such requests refuse every upload and bulk import
// of the instance with 503 for about 8.5 minutes, for four requests a minute to keep it so.
let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let articlesToken: string
let mediaToken: string
const stallMs = 500

beforeAll(async () => {
  stubEnv({ MEDIA_DIR: mkdtempSync(path.join(os.tmpdir(), 'newsroom-media-b66-')), MEDIA_S3_ENDPOINT: '', MEDIA_S3_BUCKET: '', LARGE_BODY_CONCURRENCY: '1', MEDIA_UPLOAD_IDLE_MS: String(stallMs) })
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

describe('silent bulk imports waiting in the large-body line', () => {
  it('do not refuse an editor’s upload for far longer than one stall limit', async () => {
    // One slot (LARGE_BODY_CONCURRENCY=1) and a full line: 33 requests that send headers and a byte.
    const silent = Array.from({ length: 33 }, () => send('/v1/articles/bulk', articlesToken, 'application/json', 1_000_000))
    for (const { request } of silent) request.write('{')
    await new Promise((resolve) => setTimeout(resolve, 300))

    // Another editor uploads a photo, retrying on 503 as told, for four stall limits.
    const form = new Response(uploadForm(await cameraJpeg({ width: 320, height: 240, seed: 66_066 }), 'harbour.jpg'))
    const body = Buffer.from(await form.arrayBuffer())
    const statuses: number[] = []
    const until = Date.now() + 4 * stallMs
    for (;;) {
      const upload = send('/v1/media', mediaToken, form.headers.get('content-type')!, body.length)
      upload.request.end(body)
      const answer = await Promise.race([upload.answer, new Promise<{ status: number; text: string }>((resolve) => setTimeout(() => resolve({ status: -1, text: 'still waiting' }), 8_000))])
      statuses.push(answer.status)
      if (answer.status !== 503 || Date.now() > until) break
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    for (const { request } of silent) request.destroy()
    // Stored within a few stall limits, not refused until the line of silent clients has drained (33 × 0.5 s).
    expect(statuses.at(-1), `answers to the upload: ${statuses.join(', ')}`).toBe(201)
  }, 60_000)
})
