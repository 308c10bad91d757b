import { mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createContentKey } from '../../lib/content/content-keys.ts'
import { liveMediaRefusal } from '../../lib/media/publishable-media.ts'
import { resetMediaStore } from '../../lib/media/storage/media-storage.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { cameraJpeg, uploadForm } from '../support/media-images.ts'
import { stubEnv } from '../support/stub-env.ts'
import { setupBackstopMs } from '../support/time-limits.ts'
import { holdLock, waitForLockWaiters } from '../support/row-locks.ts'

// A published story must never name an image the library does not have, nor show one without
// alt text, however an editor's publication, a writer's PATCH or a wire import meets a deletion
// or an edit of the image. Each race is made to happen, not hoped for: a connection of the test
// holds a row lock so that one request is parked at the worst moment while the other runs.

let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let editor: ReturnType<typeof apiClient>
let editorToken: string
let contentKey: string
let seed = 400

beforeAll(async () => {
  stubEnv({ MEDIA_DIR: mkdtempSync(path.join(os.tmpdir(), 'newsroom-media-races-')), MEDIA_S3_ENDPOINT: '', MEDIA_S3_BUCKET: '' })
  resetMediaStore()
  ;[server, newsroom] = await Promise.all([startApiServer(), createTestTenant()])
  editorToken = await newsroom.token(['articles:read', 'articles:write', 'media:read', 'media:write'], 'editor')
  editor = apiClient(server.url, editorToken)
  contentKey = (await createContentKey(newsroom.actor('admin'), 'Public site')).key
}, setupBackstopMs)

afterAll(async () => {
  await server?.close()
  vi.unstubAllEnvs()
  resetMediaStore()
})

async function upload(fields: Record<string, string> = { alt_text: 'A lighthouse in fog' }): Promise<string> {
  const response = await fetch(`${server.url}/v1/media`, { method: 'POST', body: uploadForm(await cameraJpeg({ seed: seed++ }), 'photo.jpg', fields), headers: { Authorization: `Bearer ${editorToken}` } })
  expect(response.status).toBe(201)
  return ((await response.json()) as { media_id: string }).media_id
}

const figure = (mediaId: string) => `<figure data-media-id="${mediaId}"><figcaption>Fog</figcaption></figure>`

async function approvedArticle(fields: Record<string, unknown>): Promise<string> {
  const created = await editor.post('/v1/articles', { headline: 'Fog closes the harbour', ...fields })
  expect(created.status, created.text).toBe(201)
  for (const to_state of ['in-review', 'approved']) expect((await editor.post(`/v1/articles/${created.body.article_id}/transitions`, { to_state })).status).toBe(200)
  return created.body.article_id
}

async function publishedArticle(fields: Record<string, unknown>): Promise<string> {
  const id = await approvedArticle(fields)
  expect((await editor.post(`/v1/articles/${id}/transitions`, { to_state: 'published' })).status).toBe(200)
  return id
}

/** Gives a request time to reach the database (and wait there, if it must), without waiting for its answer. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 400))

/** What readers get: every image the live article names is in the library, and each has alt text. */
async function assertLiveArticleWhole(articleId: string) {
  const read = await editor.get(`/v1/articles/${articleId}`)
  if (read.body.status !== 'published') return
  const named = [read.body.featured_media_id, ...[...String(read.body.body ?? '').matchAll(/data-media-id="(med_[0-9a-z]+)"/g)].map((match) => match[1])].filter(Boolean)
  for (const mediaId of named) {
    const media = await editor.get(`/v1/media/${mediaId}`)
    expect(media.status, `live article ${articleId} names ${mediaId}, which the library answers ${media.status}`).toBe(200)
    expect(media.body.alt_text, `live article ${articleId} shows ${mediaId} without alt text`).toBeTruthy()
  }
  const page = await fetch(`${server.url}/content/v1/articles/${articleId}?key=${contentKey}`)
  expect(((await page.json()) as { images: unknown[] }).images).toHaveLength(named.length)
}

describe('deleting an image while a story showing it goes live', () => {
  it('a publication parked between its check and its write: the deletion waits for it, then refuses (409 media_in_use)', async () => {
    const mediaId = await upload()
    const articleId = await approvedArticle({ featured_media_id: mediaId })
    const lock = await holdLock('SELECT id FROM articles WHERE id = $1 FOR UPDATE', [articleId])
    const publishing = editor.post(`/v1/articles/${articleId}/transitions`, { to_state: 'published' })
    await waitForLockWaiters(1)
    const deleting = editor.delete(`/v1/media/${mediaId}`)
    await settle()
    await lock.release()
    const [published, deleted] = await Promise.all([publishing, deleting])
    expect(published.status, published.text).toBe(200)
    expect(deleted.status, deleted.text).toBe(409)
    expect(deleted.body).toMatchObject({ code: 'media_in_use', article_ids: [articleId] })
    await assertLiveArticleWhole(articleId)
  })

  it('a deletion in flight when the publication judges the image: the publication waits for it, then refuses (422 naming the image)', async () => {
    const mediaId = await upload()
    const articleId = await approvedArticle({ body: `<p>Ships wait.</p>${figure(mediaId)}` })
    // The deletion's own row lock, as deleteMedia holds it until it commits.
    const deletion = await holdLock('DELETE FROM media WHERE id = $1', [mediaId])
    const publishing = editor.post(`/v1/articles/${articleId}/transitions`, { to_state: 'published' })
    await waitForLockWaiters(1)
    await deletion.release()
    const published = await publishing
    expect(published.status, published.text).toBe(422)
    expect(published.body.code).toBe('media_not_publishable')
    expect(published.body.media).toEqual([expect.objectContaining({ media_id: mediaId, missing: ['not_in_library'] })])
    expect((await editor.get(`/v1/articles/${articleId}`)).body.status).toBe('approved')
  })

  it('a PATCH bringing the image into a live story, parked before its write: the deletion waits, then refuses', async () => {
    const mediaId = await upload()
    const articleId = await publishedArticle({ body: '<p>Ships wait.</p>' })
    const lock = await holdLock('SELECT id FROM articles WHERE id = $1 FOR UPDATE', [articleId])
    const patching = editor.patch(`/v1/articles/${articleId}`, { body: `<p>Ships wait.</p>${figure(mediaId)}` })
    await waitForLockWaiters(1)
    const deleting = editor.delete(`/v1/media/${mediaId}`)
    await settle()
    await lock.release()
    const [patched, deleted] = await Promise.all([patching, deleting])
    expect(patched.status, patched.text).toBe(200)
    expect(deleted.status, deleted.text).toBe(409)
    await assertLiveArticleWhole(articleId)
  })

  it('a wire import updating a live story, parked before it judges the image: the deletion goes first, and the item fails naming the image', async () => {
    const mediaId = await upload()
    const created = await editor.post('/v1/articles/bulk', { articles: [{ external_id: 'wire-fog-1', headline: 'Fog closes the harbour' }] })
    expect(created.status, created.text).toBe(200)
    const articleId = created.body.results[0].article_id
    for (const to_state of ['in-review', 'approved', 'published']) expect((await editor.post(`/v1/articles/${articleId}/transitions`, { to_state })).status).toBe(200)
    const lock = await holdLock('SELECT id FROM articles WHERE id = $1 FOR UPDATE', [articleId])
    const importing = editor.post('/v1/articles/bulk', { articles: [{ external_id: 'wire-fog-1', headline: 'Fog closes the harbour', featured_media_id: mediaId }] })
    await waitForLockWaiters(1)
    const deleted = await editor.delete(`/v1/media/${mediaId}`)
    expect(deleted.status, deleted.text).toBe(204)
    await lock.release()
    const imported = await importing
    expect(imported.status, imported.text).toBe(200)
    expect(imported.body.results[0]).toMatchObject({ status: 'failed', errors: [expect.objectContaining({ field: 'featured_media_id', message: expect.stringContaining(mediaId) })] })
    await assertLiveArticleWhole(articleId)
  })

  it('the database itself refuses a published row naming an image the library does not have, whatever wrote it', async () => {
    const mediaId = await upload()
    const articleId = await approvedArticle({ featured_media_id: mediaId })
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL })
    await client.connect()
    try {
      await client.query('BEGIN')
      await client.query('DELETE FROM media WHERE id = $1', [mediaId])
      const refusal = await client.query(`UPDATE articles SET status = 'published' WHERE id = $1`, [articleId]).catch((error: { code: string; detail: string }) => error)
      expect(refusal).toMatchObject({ code: 'NRM01', detail: mediaId })
      // Whichever door the write came through, that refusal is the publish rule's 422.
      expect(liveMediaRefusal(refusal)).toMatchObject({ status: 422, code: 'media_not_publishable', extra: { media: [{ media_id: mediaId, missing: ['not_in_library'] }] } })
      expect(liveMediaRefusal(new Error('another failure'))).toBeUndefined()
      await client.query('ROLLBACK')
    } finally {
      await client.end()
    }
  })
})

describe('alt text while a live story shows the image', () => {
  it('clearing it is refused (409 media_in_use naming the story); changing it is fine', async () => {
    const mediaId = await upload()
    const articleId = await publishedArticle({ featured_media_id: mediaId })
    for (const alt_text of ['', '   ']) {
      const cleared = await editor.patch(`/v1/media/${mediaId}`, { alt_text })
      expect(cleared.status, cleared.text).toBe(409)
      expect(cleared.body).toMatchObject({ code: 'media_in_use', article_ids: [articleId] })
      expect(cleared.body.detail).toMatch(/alt text/)
    }
    const changed = await editor.patch(`/v1/media/${mediaId}`, { alt_text: 'The lighthouse, its lamp lit in fog' })
    expect(changed.status, changed.text).toBe(200)
    await assertLiveArticleWhole(articleId)
  })

  it('a publication parked before its write: the clearing waits for it, then refuses', async () => {
    const mediaId = await upload()
    const articleId = await approvedArticle({ featured_media_id: mediaId })
    const lock = await holdLock('SELECT id FROM articles WHERE id = $1 FOR UPDATE', [articleId])
    const publishing = editor.post(`/v1/articles/${articleId}/transitions`, { to_state: 'published' })
    await waitForLockWaiters(1)
    const clearing = editor.patch(`/v1/media/${mediaId}`, { alt_text: '' })
    await settle()
    await lock.release()
    const [published, cleared] = await Promise.all([publishing, clearing])
    expect(published.status, published.text).toBe(200)
    expect(cleared.status, cleared.text).toBe(409)
    await assertLiveArticleWhole(articleId)
  })

  it('an image nothing live shows may lose its alt text (a draft is judged when it is published)', async () => {
    const mediaId = await upload()
    await approvedArticle({ featured_media_id: mediaId })
    expect((await editor.patch(`/v1/media/${mediaId}`, { alt_text: '' })).status).toBe(200)
  })
})

describe('text that quotes the figure markup', () => {
  it('is no image: the article publishes, and nothing counts as used', async () => {
    const quoted = 'med_0mx1o8stozj9t7tatnkjrqyev'
    const id = await publishedArticle({ body: `<p>To place a photo, the figure carries data-media-id="${quoted}" in its tag.</p>` })
    const read = await editor.get(`/v1/articles/${id}`)
    expect(read.body.body).toContain(`data-media-id="${quoted}"`)
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL })
    await client.connect()
    try {
      expect((await client.query('SELECT media_ids FROM articles WHERE id = $1', [id])).rows[0].media_ids).toEqual([])
    } finally {
      await client.end()
    }
  })
})
