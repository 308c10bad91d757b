import { mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { serveMediaUpload } from '../../lib/api/portal-media-routes.ts'
import { withRouteFailures } from '../../lib/api/failure.ts'
import { createArticle } from '../../lib/articles/create-article.ts'
import { resetMediaStore } from '../../lib/media/storage/media-storage.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { db } from '../../lib/db/client.ts'
import { cameraJpeg, uploadForm } from '../support/media-images.ts'
import { nextAuthBrowser, nextAuthBrowserSecret } from '../support/next-auth-browser.ts'
import { stubEnv } from '../support/stub-env.ts'

// A portal upload whose page leaves once it has been committed is kept (lib/media/media-library.ts,
// createMedia): from its commit the image is everyone's. Another tab uploading the same bytes is
// answered with it ("Already in the library"), a colleague can put it into an article. Removing
// it again when the first page's connection closed took it from them (break62).

let newsroom: TestTenant

beforeAll(async () => {
  const tempRoot = mkdtempSync(path.join(os.tmpdir(), 'newsroom-portal-cancel-shared-'))
  stubEnv({ MEDIA_DIR: mkdtempSync(path.join(os.tmpdir(), 'newsroom-media-portal-cancel-shared-')), MEDIA_S3_ENDPOINT: '', MEDIA_S3_BUCKET: '', NEXTAUTH_SECRET: nextAuthBrowserSecret, TMPDIR: tempRoot })
  resetMediaStore()
  newsroom = await createTestTenant()
}, 120_000)

afterAll(() => {
  vi.unstubAllEnvs()
  resetMediaStore()
})

const door = withRouteFailures('media upload', (request: Request) => serveMediaUpload(request as Parameters<typeof serveMediaUpload>[0]))

const signedIn = async (role: 'writer' | 'editor', address: string) => {
  const browser = nextAuthBrowser({ userAgent: 'portal cancel shared test', address })
  expect(await browser.signIn(newsroom.users[role].email, 'test-password')).toBe(true)
  return browser.cookieHeader()
}

const upload = async (cookie: string, bytes: Buffer, filename: string, signal: AbortSignal) => {
  const form = new Response(uploadForm(bytes, filename, { alt_text: 'Harbour at dusk' }))
  const answer = (await door(
    new Request('http://localhost/api/media', {
      method: 'POST',
      body: new Uint8Array(await form.arrayBuffer()),
      headers: { cookie, 'x-newsroom-portal': '1', 'content-type': form.headers.get('content-type')! },
      signal,
    }),
  )) as Response
  return { status: answer.status, body: (await answer.json()) as { created: boolean; media: { media_id: string } } }
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 750))

describe('an upload removed because its page left, after someone else was given it', () => {
  it("two tabs upload the same photo; the first tab's page leaves after its commit: the second tab, told 'Already in the library', still finds the image", async () => {
    const cookie = await signedIn('writer', '198.51.100.61')
    const bytes = await cameraJpeg({ width: 640, height: 480, seed: 62_001 })
    const firstTab = new AbortController()
    const first = await upload(cookie, bytes, 'two-tabs.jpg', firstTab.signal)
    expect(first.status).toBe(201)
    // The second tab's upload of the same file lands while the first's answer is still on its way.
    const second = await upload(cookie, bytes, 'two-tabs.jpg', new AbortController().signal)
    expect(second.status).toBe(200)
    expect(second.body).toMatchObject({ created: false, media: { media_id: first.body.media.media_id } })
    // Now the first tab's connection closes before its answer was delivered.
    firstTab.abort()
    await settle()
    // The second tab showed this image and its editor is writing its alt text: it must still be there.
    expect(await db.media.findUnique({ where: { id: second.body.media.media_id }, select: { id: true } })).not.toBeNull()
  })

  it("a colleague puts the fresh image into a draft before the uploader's page left: the draft is not left pointing at a deleted image", async () => {
    const cookie = await signedIn('writer', '198.51.100.62')
    const bytes = await cameraJpeg({ width: 640, height: 480, seed: 62_002 })
    const leaving = new AbortController()
    const uploaded = await upload(cookie, bytes, 'colleague-took-it.jpg', leaving.signal)
    expect(uploaded.status).toBe(201)
    const mediaId = uploaded.body.media.media_id
    const article = await createArticle(newsroom.actor('editor'), { headline: 'Harbour at dusk', featured_media_id: mediaId })
    leaving.abort()
    await settle()
    const stillThere = await db.media.findUnique({ where: { id: mediaId }, select: { id: true } })
    const draft = await db.article.findUniqueOrThrow({ where: { id: article.id } })
    // Either the image stays (a colleague uses it), or nothing refers to it: never a draft naming a deleted image.
    expect(stillThere !== null || !draft.mediaIds.includes(mediaId), `draft ${article.id} names ${mediaId}, which was deleted`).toBe(true)
  })

  it("the second tab's upload arrives while the first tab's removal is under way: the image it is answered with exists", async () => {
    const cookie = await signedIn('writer', '198.51.100.63')
    for (const [round, delayMs] of [0, 0, 1, 2, 5, 10].entries()) {
      const bytes = await cameraJpeg({ width: 320, height: 240, seed: 62_100 + round })
      const firstTab = new AbortController()
      expect((await upload(cookie, bytes, `racing-${round}.jpg`, firstTab.signal)).status).toBe(201)
      firstTab.abort()
      if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs))
      const second = await upload(cookie, bytes, `racing-${round}.jpg`, new AbortController().signal)
      expect([200, 201]).toContain(second.status)
      await settle()
      expect(await db.media.findUnique({ where: { id: second.body.media.media_id }, select: { id: true } }), `round ${round}`).not.toBeNull()
    }
  })
})
