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

// Uploads wait their turn for a large-body slot (one here: LARGE_BODY_CONCURRENCY=1), and past
// 32 waiting the instance answers 503. Phones on a train give up while they wait: those that
// left must not keep their place, or a crowd that already went gets the next live upload refused.
let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let token: string

beforeAll(async () => {
  // One token stands for many phones here: LARGE_BODY_PER_CLIENT raised past the line's size.
  stubEnv({ MEDIA_DIR: mkdtempSync(path.join(os.tmpdir(), 'newsroom-media-gone-')), MEDIA_S3_ENDPOINT: '', MEDIA_S3_BUCKET: '', LARGE_BODY_CONCURRENCY: '1', LARGE_BODY_PER_CLIENT: '100' })
  resetMediaStore()
  ;[server, newsroom] = await Promise.all([startApiServer(), createTestTenant()])
  token = await newsroom.token(['media:read', 'media:write'], 'editor')
}, 120_000)

afterAll(async () => {
  await server?.close()
  vi.unstubAllEnvs()
  resetMediaStore()
})

async function multipart(seed: number) {
  const form = new Response(uploadForm(await cameraJpeg({ width: 320, height: 240, seed }), `gone-${seed}.jpg`))
  return { type: form.headers.get('content-type')!, body: Buffer.from(await form.arrayBuffer()) }
}

/** An upload whose headers and first bytes are sent; the rest when told. */
function startUpload(form: { type: string; body: Buffer }): { request: ClientRequest; answer: Promise<number> } {
  const url = new URL(`${server.url}/v1/media`)
  const request = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': form.type, 'Content-Length': String(form.body.length) } })
  const answer = new Promise<number>((resolve) => {
    request.on('response', (response) => {
      response.resume()
      resolve(response.statusCode ?? 0)
    })
    request.on('error', () => resolve(0))
  })
  request.write(form.body.subarray(0, 64))
  return { request, answer }
}

describe('uploads that left while waiting for a slot', () => {
  it('take no place in the line: the next live upload waits its turn and is kept, not refused with 503', async () => {
    const form = await multipart(62_001)
    const holder = startUpload(form)
    await new Promise((resolve) => setTimeout(resolve, 200))
    // 32 uploads line up behind it, then give up.
    const leavers = Array.from({ length: 32 }, () => startUpload(form))
    await new Promise((resolve) => setTimeout(resolve, 300))
    for (const leaver of leavers) leaver.request.destroy()
    await new Promise((resolve) => setTimeout(resolve, 300))

    const liveForm = await multipart(62_002)
    const live = startUpload(liveForm)
    live.request.end(liveForm.body.subarray(64))
    holder.request.end(form.body.subarray(64))
    expect(await holder.answer).toBe(201)
    expect(await live.answer).toBe(201)
  })
})
