import { mkdtempSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, expect, it, vi } from 'vitest'
import { resetMediaStore } from '../../../lib/media/storage/media-storage.ts'
import { startApiServer } from '../../../tests/support/api-server.ts'
import { createTestTenant } from '../../../tests/support/fixtures.ts'
import { cameraJpeg } from '../../../tests/support/media-images.ts'
import { stubEnv } from '../../../tests/support/stub-env.ts'
import { createNewsroomClient, NewsroomApiError } from '../src/index.ts'

// The media helpers an integrator reaches for (api.media.*) against a live server on the disk
// store (the embedded default's): upload a file, add a wire photo by URL, list, read, change, delete.
let server: Awaited<ReturnType<typeof startApiServer>>
let wire: Server
let wireUrl: string
let wireJpeg: Buffer

beforeAll(async () => {
  stubEnv({ MEDIA_DIR: mkdtempSync(path.join(os.tmpdir(), 'newsroom-client-media-')), MEDIA_S3_ENDPOINT: '', MEDIA_S3_BUCKET: '', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' })
  resetMediaStore()
  wireJpeg = await cameraJpeg({ seed: 42 })
  wire = createServer((_req, res) => void res.writeHead(200, { 'Content-Type': 'image/jpeg', 'Content-Length': wireJpeg.length }).end(wireJpeg))
  await new Promise<void>((resolve) => wire.listen(0, '127.0.0.1', resolve))
  wireUrl = `http://127.0.0.1:${(wire.address() as AddressInfo).port}/wire.jpg`
  server = await startApiServer()
})
afterAll(async () => {
  wire?.closeAllConnections()
  await Promise.all([server?.close(), wire && new Promise((resolve) => wire.close(resolve))])
  vi.unstubAllEnvs()
  resetMediaStore()
})

it('api.media uploads a Blob (multipart) and a URL, lists, reads, changes and deletes images', async () => {
  const newsroom = await createTestTenant()
  const api = createNewsroomClient({ baseUrl: server.url, token: await newsroom.token(['media:read', 'media:write'], 'editor') })

  const uploaded = await api.media.upload(new Blob([new Uint8Array(await cameraJpeg({ seed: 7 }))], { type: 'image/jpeg' }), { alt_text: 'A harbour at dawn', credit: 'Staff' }, 'harbour.jpg')
  expect(uploaded).toMatchObject({ filename: 'harbour.jpg', content_type: 'image/jpeg', alt_text: 'A harbour at dawn', credit: 'Staff' })

  const fetched = await api.media.fromUrl({ source_url: wireUrl, alt_text: 'A wire photo' })
  expect(fetched).toMatchObject({ content_type: 'image/jpeg', alt_text: 'A wire photo', bytes: wireJpeg.length })

  const listed: string[] = []
  for await (const image of api.media.list({ limit: 1 })) listed.push(image.media_id)
  expect(listed.sort()).toEqual([uploaded.media_id, fetched.media_id].sort())

  expect((await api.media.get(uploaded.media_id)).alt_text).toBe('A harbour at dawn')
  expect((await api.media.update(uploaded.media_id, { caption: 'Boats return' })).caption).toBe('Boats return')

  await api.media.delete(fetched.media_id)
  const gone = await api.media.get(fetched.media_id).catch((error: unknown) => error)
  expect(gone).toBeInstanceOf(NewsroomApiError)
  expect((gone as NewsroomApiError).status).toBe(404)
})
