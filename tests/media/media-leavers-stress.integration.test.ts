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

// Clients leave at every moment (waiting, as their turn comes, mid-body, after the body): the
// large-body gate's slots must come out exactly as many as LARGE_BODY_CONCURRENCY (1 here), the
// 33rd waiter still refused, and an Idempotency-Key of a request that left still usable.
let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let token: string

beforeAll(async () => {
  // One token stands for many clients here: LARGE_BODY_PER_CLIENT raised past the line's size.
  stubEnv({ MEDIA_DIR: mkdtempSync(path.join(os.tmpdir(), 'newsroom-media-leavers-')), MEDIA_S3_ENDPOINT: '', MEDIA_S3_BUCKET: '', LARGE_BODY_CONCURRENCY: '1', LARGE_BODY_PER_CLIENT: '100' })
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
  const form = new Response(uploadForm(await cameraJpeg({ width: 320, height: 240, seed }), `leaver-${seed}.jpg`))
  return { type: form.headers.get('content-type')!, body: Buffer.from(await form.arrayBuffer()) }
}

type Upload = { request: ClientRequest; answer: Promise<{ status: number; text: string }> }
function startUpload(form: { type: string; body: Buffer }, extra: Record<string, string> = {}, first = 64): Upload {
  const url = new URL(`${server.url}/v1/media`)
  const request = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': form.type, 'Content-Length': String(form.body.length), ...extra } })
  const answer = new Promise<{ status: number; text: string }>((resolve) => {
    request.on('response', (response) => {
      let text = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (text += chunk))
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text }))
      response.on('error', () => resolve({ status: response.statusCode ?? 0, text }))
    })
    request.on('error', () => resolve({ status: 0, text: '' }))
  })
  request.write(form.body.subarray(0, first))
  return { request, answer }
}
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('clients leaving the large-body line at every moment', () => {
  it('leak no slot and no place, serve every live one once, and free their idempotency keys', async () => {
    const form = await multipart(63_001)
    // Round after round: a holder, leavers at every moment, live clients.
    for (let round = 0; round < 3; round++) {
      const holder = startUpload(form)
      await pause(100)
      const waiting = Array.from({ length: 10 }, () => startUpload(form))
      const midBody = Array.from({ length: 5 }, () => startUpload(form, {}, 1000))
      await pause(150)
      for (const leaver of waiting.slice(0, 5)) leaver.request.destroy()
      const liveForms = await Promise.all([0, 1, 2].map((i) => multipart(63_100 + round * 10 + i)))
      const live = liveForms.map((liveForm) => startUpload(liveForm))
      for (const [i, l] of live.entries()) l.request.end(liveForms[i]!.body.subarray(64))
      // Some send their whole body, then leave while waiting or as their turn comes.
      for (const [i, w] of waiting.slice(5).entries()) {
        w.request.end(form.body.subarray(64))
        if (i % 2 === 0) setImmediate(() => w.request.destroy())
      }
      holder.request.end(form.body.subarray(64))
      // Leave exactly as the holder ends (turn handed over).
      void holder.answer.then(() => waiting[5]!.request.destroy())
      for (const m of midBody) setTimeout(() => m.request.destroy(), 5 + Math.random() * 200)
      const answers = await Promise.all([holder, ...live].map((u) => u.answer))
      for (const a of answers) expect(a.status, a.text).toBeLessThan(300)
      const rest = await Promise.all([...waiting, ...midBody].map((u) => u.answer))
      for (const a of rest) {
        expect(a.status, a.text).toBeLessThan(500)
        expect(a.text).not.toMatch(/internal|stack|prisma/i)
      }
    }
    await pause(300)

    // Abandoned with an Idempotency-Key: while waiting, mid-body, after the body.
    const keys = ['leaver-key-wait', 'leaver-key-mid', 'leaver-key-after']
    const keyedForms = await Promise.all([0, 1, 2].map((i) => multipart(63_200 + i)))
    const blocker = startUpload(form)
    await pause(100)
    const k0 = startUpload(keyedForms[0]!, { 'Idempotency-Key': keys[0]! })
    await pause(100)
    k0.request.destroy()
    blocker.request.end(form.body.subarray(64))
    await blocker.answer
    const k1 = startUpload(keyedForms[1]!, { 'Idempotency-Key': keys[1]! }, 2000)
    await pause(100)
    k1.request.destroy()
    const k2 = startUpload(keyedForms[2]!, { 'Idempotency-Key': keys[2]! })
    k2.request.end(keyedForms[2]!.body.subarray(64))
    setImmediate(() => k2.request.destroy())
    await pause(1500)
    for (const [i, key] of keys.entries()) {
      const retry = startUpload(keyedForms[i]!, { 'Idempotency-Key': key })
      retry.request.end(keyedForms[i]!.body.subarray(64))
      const answer = await retry.answer
      expect([200, 201], `${key}: ${answer.text}`).toContain(answer.status)
    }

    // The gate is whole: one runs, 32 wait, the 33rd waiting is refused.
    const holder = startUpload(form)
    await pause(150)
    const line = Array.from({ length: 32 }, () => startUpload(form))
    await pause(400)
    const extra = startUpload(form)
    extra.request.end(form.body.subarray(64))
    const refused = await extra.answer
    expect(refused.status, refused.text).toBe(503)
    holder.request.end(form.body.subarray(64))
    for (const u of line) u.request.end(form.body.subarray(64))
    const served = await Promise.all([holder, ...line].map((u) => u.answer))
    for (const a of served) expect([200, 201], a.text).toContain(a.status)
  }, 120_000)
})
