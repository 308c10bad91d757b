import { existsSync, mkdtempSync, readdirSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { serveMediaUpload } from '../../lib/api/portal-media-routes.ts'
import { withRouteFailures } from '../../lib/api/failure.ts'
import { withLargeBodySlot } from '../../lib/api/large-body-gate.ts'
import { resetMediaStore } from '../../lib/media/storage/media-storage.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { db } from '../../lib/db/client.ts'
import { cameraJpeg, uploadForm } from '../support/media-images.ts'
import { nextAuthBrowser, nextAuthBrowserSecret } from '../support/next-auth-browser.ts'
import { stubEnv } from '../support/stub-env.ts'

// Portal uploads whose page leaves at every moment (waiting for a slot, mid-body, while the
// image is checked): nothing kept (no row, no blob, no temp file), and the gate stays whole.
let newsroom: TestTenant
let tempRoot: string
let mediaDir: string

beforeAll(async () => {
  tempRoot = mkdtempSync(path.join(os.tmpdir(), 'newsroom-portal-leavers-'))
  mediaDir = mkdtempSync(path.join(os.tmpdir(), 'newsroom-media-portal-leavers-'))
  stubEnv({ MEDIA_DIR: mediaDir, MEDIA_S3_ENDPOINT: '', MEDIA_S3_BUCKET: '', NEXTAUTH_SECRET: nextAuthBrowserSecret, TMPDIR: tempRoot, LARGE_BODY_CONCURRENCY: '1' })
  resetMediaStore()
  newsroom = await createTestTenant()
}, 120_000)

afterAll(() => {
  vi.unstubAllEnvs()
  resetMediaStore()
})

const door = withRouteFailures('media upload', (request: Request) => serveMediaUpload(request as Parameters<typeof serveMediaUpload>[0]))
const files = (dir: string) => (existsSync(dir) ? readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => entry.name) : [])
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('portal uploads whose page left', () => {
  it('leave no row, blob or temp file at any moment, and the large-body gate whole', async () => {
    const browser = nextAuthBrowser({ userAgent: 'portal leavers test', address: '198.51.100.91' })
    expect(await browser.signIn(newsroom.users.writer.email, 'test-password')).toBe(true)
    const cookie = browser.cookieHeader()
    const attempt = async (seed: number, leaveAt: 'waiting' | 'mid-body' | 'checked' | number) => {
      const form = new Response(uploadForm(await cameraJpeg({ width: 1200, height: 900, seed }), `leaver-${seed}.jpg`, { alt_text: 'x' }))
      const bytes = new Uint8Array(await form.arrayBuffer())
      const leaving = new AbortController()
      let sent = 0
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (sent >= bytes.length) {
            controller.close()
            if (leaveAt === 'checked') setImmediate(() => leaving.abort())
            return
          }
          const chunk = bytes.subarray(sent, sent + 4096)
          sent += chunk.length
          controller.enqueue(chunk)
          if (leaveAt === 'mid-body' && sent > bytes.length / 2) {
            leaving.abort()
            controller.error(new Error('aborted'))
          }
          await pause(1)
        },
      })
      if (leaveAt === 'waiting') setTimeout(() => leaving.abort(), 20)
      if (typeof leaveAt === 'number') setTimeout(() => leaving.abort(), leaveAt)
      const answer = (await door(
        new Request('http://localhost/api/media', { method: 'POST', body, headers: { cookie, 'x-newsroom-portal': '1', 'content-type': form.headers.get('content-type')! }, signal: leaving.signal, ...({ duplex: 'half' } as object) }),
      ).catch((error: unknown) => error)) as Response
      return { answer, filename: `leaver-${seed}.jpg` }
    }

    // Someone holds the only slot while some wait and leave.
    let release!: () => void
    const holding = withLargeBodySlot(() => new Promise<void>((resolve) => (release = resolve)))
    await pause(50)
    const waiters = await Promise.all([1, 2, 3].map((i) => attempt(64_000 + i, 'waiting')))
    release()
    await holding
    const others = []
    for (const [i, leaveAt] of (['mid-body', 'checked', 'checked', 5, 30, 80, 150] as const).entries()) others.push(await attempt(64_100 + i, leaveAt))
    for (const { answer } of [...waiters, ...others]) {
      if (answer instanceof Response) {
        const text = await answer.text()
        expect(answer.status, text).toBeLessThan(500)
      }
    }
    await pause(500)
    const kept = await db.media.findMany({ where: { tenantId: newsroom.tenant.id }, select: { id: true, filename: true, storageKey: true } })
    // Only uploads that got their 201 may be kept.
    const answered = new Set<string>()
    for (const { answer, filename } of [...waiters, ...others]) if (answer instanceof Response && answer.status === 201) answered.add(filename)
    expect(kept.map((m) => m.filename).filter((f) => !answered.has(f))).toEqual([])
    expect(files(mediaDir).length, 'blobs without rows').toBe(kept.length)
    expect(files(path.join(tempRoot, 'newsroom-media')), 'temp files left').toEqual([])

    // The gate: one runs, 32 wait, the next is refused.
    let releaseAll!: () => void
    const gate = new Promise<void>((resolve) => (releaseAll = resolve))
    const runs = Array.from({ length: 33 }, () => withLargeBodySlot(() => gate))
    await expect(withLargeBodySlot(async () => undefined)).rejects.toMatchObject({ status: 503 })
    releaseAll()
    await Promise.all(runs)
  }, 120_000)
})
