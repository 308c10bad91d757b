import { mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { TRPCError } from '@trpc/server'
import { beforeAll, describe, expect, it } from 'vitest'
import { db } from '../../lib/db/client.ts'
import type { Role } from '../../lib/db/generated/enums.ts'
import { serveMediaUpload } from '../../lib/api/portal-media-routes.ts'
import { resetMediaStore } from '../../lib/media/storage/media-storage.ts'
import { createCallerFactory, type PortalContext } from '../../lib/trpc/init.ts'
import { appRouter } from '../../lib/trpc/routers/app-router.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { cameraJpeg, uploadForm, uploadThroughDomain } from '../support/media-images.ts'
import { stubEnv } from '../support/stub-env.ts'

// The portal's media procedures and upload door: thin adapters that must refuse and allow
// exactly what lib/media does (mediaActionRefusal), with the domain's own words.

const createCaller = createCallerFactory(appRouter)
let newsroom: TestTenant
let other: TestTenant

function contextOf(tenant: TestTenant, role: Role): PortalContext {
  const user = tenant.users[role]
  return {
    member: { id: user.id, email: user.email, name: `${tenant.tenant.slug} ${role}`, role, tenantId: tenant.tenant.id, tenantName: tenant.tenant.name },
    tenant: tenant.actor(role).tenant,
  }
}
const as = (role: Role, tenant: TestTenant = newsroom) => createCaller(contextOf(tenant, role))

async function rejection(promise: Promise<unknown>): Promise<TRPCError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  expect(error).toBeInstanceOf(TRPCError)
  return error as TRPCError
}

let seed = 100
const upload = async (role: Role, fields: { alt_text?: string } = {}) => (await uploadThroughDomain(newsroom.actor(role), await cameraJpeg({ width: 400, height: 300, seed: seed++ }), fields)).media

describe('the portal media procedures', () => {
  beforeAll(async () => {
    stubEnv({ MEDIA_DIR: mkdtempSync(path.join(os.tmpdir(), 'newsroom-media-portal-')), MEDIA_S3_ENDPOINT: '', MEDIA_S3_BUCKET: '' })
    resetMediaStore()
    newsroom = await createTestTenant()
    other = await createTestTenant()
  })

  it('lists with the rights badges and, per image, whether this member may change or delete it', async () => {
    const editors = await upload('editor')
    const writers = await upload('writer', { alt_text: 'A test card.' })
    const page = await as('writer').media.list({ limit: 100, offset: 0 })
    const byId = new Map(page.items.map((item) => [item.media_id, item]))
    expect(byId.get(editors.id)).toMatchObject({ badges: [{ kind: 'no_alt_text', label: 'No alt text' }], edit_refusal: 'A writer can change only the images they uploaded; ask an editor to change this one.' })
    expect(byId.get(writers.id)).toMatchObject({ badges: [], edit_refusal: null, delete_refusal: null })
    expect((await as('editor').media.list({ limit: 100, offset: 0 })).items.every((item) => item.edit_refusal === null && item.delete_refusal === null)).toBe(true)
    // Another newsroom sees none of them, and gets a 404 for an id.
    expect((await as('editor', other).media.list({ limit: 100, offset: 0 })).items.map((item) => item.media_id)).not.toContain(editors.id)
    expect((await rejection(as('editor', other).media.get({ media_id: editors.id }))).code).toBe('NOT_FOUND')
  })

  it('a writer changes and deletes only their own; an editor any; a stale version is refused', async () => {
    const editors = await upload('editor')
    const writers = await upload('writer')
    const changed = await as('writer').media.update({ media_id: writers.id, version: 1, changes: { alt_text: 'Mine.', focal_point: { x: 0.2, y: 0.8 } } })
    expect(changed).toMatchObject({ alt_text: 'Mine.', focal_point: { x: 0.2, y: 0.8 }, version: 2, badges: [] })
    const refusedEdit = await rejection(as('writer').media.update({ media_id: editors.id, version: 1, changes: { alt_text: 'Not mine.' } }))
    expect(refusedEdit).toMatchObject({ code: 'FORBIDDEN', message: 'A writer can change only the images they uploaded; ask an editor to change this one.' })
    const refusedDelete = await rejection(as('writer').media.delete({ media_id: editors.id, version: 1 }))
    expect(refusedDelete).toMatchObject({ code: 'FORBIDDEN', message: 'A writer can delete only the images they uploaded; ask an editor to delete this one.' })
    expect(await db.media.count({ where: { id: editors.id, altText: null } })).toBe(1)
    expect((await rejection(as('editor').media.delete({ media_id: writers.id, version: 1 }))).code).toBe('PRECONDITION_FAILED')
    await as('editor').media.delete({ media_id: writers.id, version: 2 })
    expect(await db.media.count({ where: { id: writers.id } })).toBe(0)
  })

  it('deleting an image a published article shows is a conflict naming the article; get says where it is used', async () => {
    const image = await upload('editor', { alt_text: 'Boats.' })
    const article = await as('editor').articles.create({ headline: 'Boats return', featured_media_id: image.id })
    await db.article.update({ where: { id: article.article_id }, data: { status: 'published', publishedAt: new Date() } })
    const shown = await as('writer').media.get({ media_id: image.id })
    expect(shown.uses).toEqual([{ article_id: article.article_id, headline: 'Boats return', status: 'published' }])
    const refused = await rejection(as('editor').media.delete({ media_id: image.id, version: 1 }))
    expect(refused.code).toBe('CONFLICT')
    expect(refused.message).toBe(`Published articles show this image: ${article.article_id}. Remove it from them (or unpublish them) first.`)
  })

  it('the upload door refuses requests not from the portal, and without a live session', async () => {
    const form = uploadForm(await cameraJpeg({ width: 200, height: 100, seed: 1 }), 'x.jpg')
    const crossSite = new Request('http://localhost/api/media', { method: 'POST', body: form, headers: { origin: 'https://evil.example', 'x-newsroom-portal': '1', host: 'localhost' } })
    await expect(serveMediaUpload(crossSite)).rejects.toMatchObject({ code: 'forbidden', message: 'Cross-site request refused.' })
    const noSession = new Request('http://localhost/api/media', { method: 'POST', body: uploadForm(await cameraJpeg({ width: 200, height: 100, seed: 2 }), 'x.jpg'), headers: { 'x-newsroom-portal': '1' } })
    await expect(serveMediaUpload(noSession)).rejects.toMatchObject({ code: 'unauthenticated' })
  })
})
