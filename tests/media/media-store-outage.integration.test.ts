import { mkdtempSync, readFileSync, readdirSync } from 'node:fs'
import { createServer } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, expect, it, vi } from 'vitest'
import { startObjectStore, type ObjectStore } from '../../scripts/object-store.ts'
import { resetMediaStore } from '../../lib/media/storage/media-storage.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant } from '../support/fixtures.ts'
import { cameraJpeg, uploadForm } from '../support/media-images.ts'
import { stubEnv } from '../support/stub-env.ts'
import { setupBackstopMs } from '../support/time-limits.ts'

// The object store hangs (a gateway stuck: SIGSTOP, a network partition) or is down (the
// process gone). An upload must get an answer either way, saying the store is the trouble,
// with Retry-After: never a request that waits forever holding one of the instance's two
// large-body slots (after which every upload of the newsroom queues behind it), and never
// "cannot reach its database" when the database is fine.

let store: ObjectStore | undefined
let server: Awaited<ReturnType<typeof startApiServer>> | undefined
let token: string
let stateDir: string

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer()
    probe.once('error', () => resolve(false))
    probe.listen(port, () => probe.close(() => resolve(true)))
  })
}

async function freePortRange(size = 20): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 2_000) * size
    let free = true
    for (let port = base; port < base + size && free; port++) free = await isFree(port)
    if (free) return base
  }
  throw new Error('No free ports for the object store')
}

/** The gateway daemon's pid, from the pid file the object store script keeps. */
function gatewayPid(): number {
  const run = path.join(stateDir, 'run')
  const file = readdirSync(run).find((name) => name === 'radosgw.spawned.pid')
  if (!file) throw new Error(`No radosgw pid file in ${run}`)
  return Number(readFileSync(path.join(run, file), 'utf8').trim())
}

const upload = async (bytes: Buffer, name: string) => {
  const response = await fetch(`${server!.url}/v1/media`, { method: 'POST', body: uploadForm(bytes, name), headers: { Authorization: `Bearer ${token}` } })
  const text = await response.text()
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: text ? JSON.parse(text) : undefined, text }
}

beforeAll(async () => {
  stateDir = mkdtempSync(path.join(os.tmpdir(), 'newsroom-rgw-outage-'))
  store = await startObjectStore({ stateDir, basePort: await freePortRange() })
  // Seconds, not the production default: the test waits for the store's silence to be noticed.
  stubEnv({ ...store.env, MEDIA_S3_BUCKET: `media-outage-${process.pid}`, MEDIA_DIR: '', MEDIA_S3_TIMEOUT_MS: '3000' })
  resetMediaStore()
  const newsroom = await createTestTenant()
  token = await newsroom.token(['media:read', 'media:write'], 'editor')
  server = await startApiServer()
}, setupBackstopMs)

afterAll(async () => {
  try {
    process.kill(gatewayPid(), 'SIGCONT')
  } catch {
    // Already running, or gone.
  }
  await server?.close()
  await store?.stop()
  vi.unstubAllEnvs()
  resetMediaStore()
}, setupBackstopMs)

it('a hung object store: the upload is answered 503 naming the media store, with Retry-After, and the next upload is not stuck behind it', async () => {
  const first = await upload(await cameraJpeg({ seed: 301 }), 'before.jpg')
  expect(first.status, first.text).toBe(201)

  const pid = gatewayPid()
  process.kill(pid, 'SIGSTOP')
  try {
    const [a, b, c] = await Promise.all([301, 302, 303].map(async (seed) => upload(await cameraJpeg({ seed: seed + 1 }), `during-${seed}.jpg`)))
    for (const answer of [a!, b!, c!]) {
      expect(answer.status, answer.text).toBe(503)
      expect(answer.retryAfter).toMatch(/^\d+$/)
      expect(answer.body.detail).toMatch(/media store/i)
      expect(answer.body.detail).not.toMatch(/database/i)
    }
  } finally {
    process.kill(pid, 'SIGCONT')
  }
  const after = await upload(await cameraJpeg({ seed: 399 }), 'after.jpg')
  expect(after.status, after.text).toBe(201)
}, 120_000)

it('a stopped object store: the upload is a 503 naming the media store, not the database', async () => {
  const pid = gatewayPid()
  process.kill(pid, 'SIGKILL')
  await new Promise((resolve) => setTimeout(resolve, 500))
  const answer = await upload(await cameraJpeg({ seed: 401 }), 'gone.jpg')
  expect(answer.status, answer.text).toBe(503)
  expect(answer.body.detail).toMatch(/media store/i)
  expect(answer.body.detail).not.toMatch(/database/i)
}, 120_000)
