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

// A slow-loris client holding a large-body slot: an upload that stops sending is let go after
// MEDIA_UPLOAD_IDLE_MS (media-upload-body.ts). A bulk import (the same gate, the same slots) that
// sends its headers and a byte, then nothing, must be let go too, or two such clients (the default
// LARGE_BODY_CONCURRENCY) lock every upload and import of the instance out until Node's
// requestTimeout (five minutes), and again as soon as they reconnect.
let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let articlesToken: string
let mediaToken: string

beforeAll(async () => {
  stubEnv({ MEDIA_DIR: mkdtempSync(path.join(os.tmpdir(), 'newsroom-media-stalled-bulk-')), MEDIA_S3_ENDPOINT: '', MEDIA_S3_BUCKET: '', LARGE_BODY_CONCURRENCY: '1', MEDIA_UPLOAD_IDLE_MS: '500' })
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

/** Another editor's upload, sent while a slot is held: its status, or 'still waiting' after 8 s. */
async function nextUpload(seed: number, filename: string): Promise<{ outcome: Promise<number | 'still waiting'>; settled: Promise<unknown> }> {
  const form = new Response(uploadForm(await cameraJpeg({ width: 320, height: 240, seed }), filename))
  const body = Buffer.from(await form.arrayBuffer())
  const upload = send('/v1/media', mediaToken, form.headers.get('content-type')!, body.length)
  upload.request.end(body)
  const outcome = Promise.race([upload.answer.then((answer) => answer.status), new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), 8_000))])
  return { outcome, settled: upload.answer }
}

describe('a bulk import that stops sending its body', () => {
  it('is let go as a stalled upload is, so the next upload gets the slot', async () => {
    const stalled = send('/v1/articles/bulk', articlesToken, 'application/json', 1_000_000)
    stalled.request.write('{"articles":[')
    await new Promise((resolve) => setTimeout(resolve, 200))

    const upload = await nextUpload(63_500, 'after-stall.jpg')
    const outcome = await upload.outcome
    stalled.request.destroy()
    await upload.settled
    expect(outcome).toBe(201)
  }, 60_000)
})

/** Sends `first`, then a byte every `everyMs` (under the stall limit, so never idle for it) until stopped. */
function drip(request: ClientRequest, first: string, everyMs: number): () => void {
  request.write(first)
  const timer = setInterval(() => request.write(' '), everyMs)
  return () => clearInterval(timer)
}

describe('a body that drips a byte at a time, never quite stalling', () => {
  // The stall limit alone let a client that sends one byte just inside it (every 29 s of the
  // default 30) hold its slot until Node's requestTimeout, five minutes, and again on reconnect.
  it('a bulk import is let go once it falls under the least rate, so the next upload gets the slot', async () => {
    const dripping = send('/v1/articles/bulk', articlesToken, 'application/json', 1_000_000)
    const stop = drip(dripping.request, '{"articles":[', 300)
    await new Promise((resolve) => setTimeout(resolve, 200))

    const upload = await nextUpload(63_501, 'after-drip.jpg')
    const outcome = await upload.outcome
    // The dripping client is told why, in words.
    const refused = await Promise.race([dripping.answer, new Promise<{ status: number; text: string }>((resolve) => setTimeout(() => resolve({ status: -1, text: 'no answer' }), 2_000))])
    stop()
    dripping.request.destroy()
    await upload.settled
    expect(outcome).toBe(201)
    expect(refused.status).toBe(400)
    expect(refused.text).toContain('The body arrived too slowly: under 1,024 bytes a second over the last 0.5 s')
  }, 60_000)

  it('an upload is let go the same way', async () => {
    const form = new Response(uploadForm(await cameraJpeg({ width: 320, height: 240, seed: 63_502 }), 'dripping.jpg'))
    const whole = Buffer.from(await form.arrayBuffer())
    const dripping = send('/v1/media', mediaToken, form.headers.get('content-type')!, whole.length)
    // The form's opening (its boundary and the part's headers), then a byte at a time.
    dripping.request.write(whole.subarray(0, 200))
    const timer = setInterval(() => dripping.request.write(whole.subarray(200, 201)), 300)
    await new Promise((resolve) => setTimeout(resolve, 200))

    const upload = await nextUpload(63_503, 'after-upload-drip.jpg')
    const outcome = await upload.outcome
    clearInterval(timer)
    dripping.request.destroy()
    await upload.settled
    expect(outcome).toBe(201)
  }, 60_000)
})

describe('a bulk import that bursts, then drips a byte inside the stall limit', () => {
  // An average since the body began let the burst pay for the drip, a second of slot per KB
  // (at the defaults, 300 KB kept the slot for Node's five-minute requestTimeout).
  it('is let go within a few stall limits, so the next upload gets the slot', async () => {
    const dripping = send('/v1/articles/bulk', articlesToken, 'application/json', 1_000_000)
    // 20 KB of whitespace-padded JSON at once: 20 s of "average over 1 KB/s" at a 0.5 s stall limit.
    const stop = drip(dripping.request, '{"articles":[' + ' '.repeat(20 * 1024), 300)
    await new Promise((resolve) => setTimeout(resolve, 200))
    const upload = await nextUpload(63_651, 'after-burst-drip.jpg')
    const outcome = await upload.outcome
    stop()
    dripping.request.destroy()
    await upload.settled
    expect(outcome).toBe(201)
  }, 60_000)
})
