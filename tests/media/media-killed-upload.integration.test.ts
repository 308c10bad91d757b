import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { cameraJpeg, uploadForm } from '../support/media-images.ts'
import { spawnApiServer, type SpawnedApiServer } from '../support/spawn-api-server.ts'

// An operator restarts an instance (a deploy, an OOM kill, kill -9) while a photographer's upload
// is streaming to it. The upload is lost, as it must be; what it wrote must not stay behind: the
// temporary file holds the photo as it came (GPS position and camera serial included), outside
// the media store, where no deletion of the image will ever reach it.

const tempRoot = mkdtempSync(path.join(os.tmpdir(), 'newsroom-killed-upload-tmp-'))
const mediaDir = mkdtempSync(path.join(os.tmpdir(), 'newsroom-killed-upload-media-'))
const env = { TMPDIR: tempRoot, MEDIA_DIR: mediaDir, MEDIA_S3_ENDPOINT: '', MEDIA_S3_BUCKET: '' }
const servers: SpawnedApiServer[] = []

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()))
  rmSync(tempRoot, { recursive: true, force: true })
  rmSync(mediaDir, { recursive: true, force: true })
})

const uploadTemp = () => path.join(tempRoot, 'newsroom-media')
const leftovers = () => (existsSync(uploadTemp()) ? readdirSync(uploadTemp(), { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => entry.name) : [])

async function until(condition: () => boolean, what: string) {
  for (let tries = 0; tries < 400; tries++) {
    if (condition()) return
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error(`never happened: ${what}`)
}

describe('an instance killed mid-upload', () => {
  it('leaves no copy of the half-received photo once it is back', async () => {
    const first = await spawnApiServer(process.env.DATABASE_URL!, { tenant: true, timeoutMs: 60_000, env })
    servers.push(first)
    const photo = await cameraJpeg({ width: 3000, height: 2000, seed: 47_100 })
    const form = new Response(uploadForm(photo, 'source.jpg', { alt_text: 'A source at the harbour' }))
    const body = Buffer.from(await form.arrayBuffer())
    // Half the body, then the sender waits (a phone on a slow network); the instance is killed.
    const url = new URL(`${first.url}/v1/media`)
    const sending = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { Authorization: `Bearer ${first.tenant!.token}`, 'Content-Type': form.headers.get('content-type')!, 'Content-Length': String(body.length) } })
    sending.on('error', () => undefined)
    sending.write(body.subarray(0, body.length >> 1))
    await until(() => leftovers().length > 0, 'the upload was being written to a temporary file')
    first.child.kill('SIGKILL')
    await first.exited
    sending.destroy()
    expect(leftovers().length).toBeGreaterThan(0)

    // The instance is back (same machine, same temp directory) and takes uploads again.
    const second = await spawnApiServer(process.env.DATABASE_URL!, { tenant: true, timeoutMs: 60_000, env })
    servers.push(second)
    const again = await fetch(`${second.url}/v1/media`, { method: 'POST', body: uploadForm(await cameraJpeg({ width: 400, height: 300, seed: 47_101 }), 'later.jpg'), headers: { Authorization: `Bearer ${second.tenant!.token}` } })
    expect(again.status, await again.text()).toBe(201)
    expect(leftovers(), 'the killed upload is still on disk, outside the media store').toEqual([])
  })
})
