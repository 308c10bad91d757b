import { TRPCError } from '@trpc/server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { updateReadVersion } from '../../lib/articles/change-current-version.ts'
import { db } from '../../lib/db/client.ts'
import type { Role } from '../../lib/db/generated/enums.ts'
import { createCallerFactory, type PortalContext } from '../../lib/trpc/init.ts'
import { appRouter } from '../../lib/trpc/routers/app-router.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

const createCaller = createCallerFactory(appRouter)

let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let other: TestTenant
let editorApi: ReturnType<typeof apiClient>
let reader: ReturnType<typeof apiClient>

function portal(role: Role, tenant: TestTenant = newsroom) {
  const user = tenant.users[role]
  const context: PortalContext = {
    member: { id: user.id, email: user.email, name: `${tenant.tenant.slug} ${role}`, role, tenantId: tenant.tenant.id, tenantName: tenant.tenant.name },
    tenant: tenant.actor(role).tenant,
  }
  return createCaller(context)
}

const versionOf = async (id: string) => (await db.article.findUniqueOrThrow({ where: { id } })).version
const revisionCount = (articleId: string) => db.articleRevision.count({ where: { articleId } })
const updatedEvents = (articleId: string) =>
  db.event.count({ where: { tenantId: newsroom.tenant.id, kind: 'article.updated', data: { path: ['article_id'], equals: articleId } } })

beforeAll(async () => {
  server = await startApiServer()
  newsroom = await createTestTenant()
  other = await createTestTenant()
  editorApi = apiClient(server.url, await newsroom.token(['articles:read', 'articles:write'], 'editor'))
  reader = apiClient(server.url, await newsroom.token(['articles:read']))
})
afterAll(() => server.close())

async function createViaApi(article: Record<string, unknown> = {}): Promise<string> {
  const created = await editorApi.post('/v1/articles', { headline: 'Harbour reopens', body: '<p>Boats are back.</p>', ...article })
  expect(created.status).toBe(201)
  return created.body.article_id
}

describe('every content write makes exactly one revision', () => {
  it('create, PATCH and a portal save each add one, naming who and which fields', async () => {
    const id = await createViaApi({ tags: ['local'] })
    expect(await revisionCount(id)).toBe(1)

    expect((await editorApi.patch(`/v1/articles/${id}`, { headline: 'Harbour reopens at last' })).status).toBe(200)
    expect(await revisionCount(id)).toBe(2)

    await portal('editor').articles.update({ article_id: id, version: 2, changes: { body: '<p>Boats and ferries are back.</p>', tags: ['local', 'sea'] } })
    expect(await revisionCount(id)).toBe(3)

    const page = await reader.get(`/v1/articles/${id}/revisions`)
    expect(page.status).toBe(200)
    expect(page.body.total).toBe(3)
    expect(page.body.items.map((revision: { version: number }) => revision.version)).toEqual([3, 2, 1])
    const [portalSave, patch, creation] = page.body.items
    expect(portalSave).toMatchObject({ fields: ['body', 'tags'], body: '<p>Boats and ferries are back.</p>', tags: ['local', 'sea'], actor: { id: newsroom.users.editor.id } })
    expect(patch).toMatchObject({ fields: ['headline'], headline: 'Harbour reopens at last', body: '<p>Boats are back.</p>' })
    expect(creation.fields).toEqual(['headline', 'lede', 'body', 'department_id', 'tags', 'author_id'])

    const one = await reader.get(`/v1/articles/${id}/revisions/${patch.revision_id}`)
    expect(one.status).toBe(200)
    expect(one.body).toEqual(patch)

    const paged = await reader.get(`/v1/articles/${id}/revisions?limit=2&offset=2`)
    expect(paged.body.items.map((revision: { version: number }) => revision.version)).toEqual([1])
    expect(paged.body.next_offset).toBeNull()
  })

  it('a transition, or a PATCH that changes nothing, makes none', async () => {
    const id = await createViaApi()
    expect((await editorApi.post(`/v1/articles/${id}/transitions`, { to_state: 'in-review' })).status).toBe(200)
    expect((await editorApi.patch(`/v1/articles/${id}`, { headline: 'Harbour reopens' })).status).toBe(200)
    expect(await revisionCount(id)).toBe(1)
  })

  it('a bulk import makes one per created or changed article, and an identical re-import none', async () => {
    const items = [
      { external_id: 'WIRE-1', headline: 'Wire one', body: '<p>One.</p>' },
      { external_id: 'WIRE-2', headline: 'Wire two', body: '<p>Two.</p>' },
    ]
    expect((await editorApi.post('/v1/articles/bulk', { articles: items })).status).toBe(200)
    const ids = (await db.article.findMany({ where: { tenantId: newsroom.tenant.id, externalId: { in: ['WIRE-1', 'WIRE-2'] } }, orderBy: { externalId: 'asc' } })).map((a) => a.id)
    expect(await Promise.all(ids.map(revisionCount))).toEqual([1, 1])

    expect((await editorApi.post('/v1/articles/bulk', { articles: items })).status).toBe(200)
    expect(await Promise.all(ids.map(revisionCount))).toEqual([1, 1])

    expect((await editorApi.post('/v1/articles/bulk', { articles: [items[0], { ...items[1], headline: 'Wire two, corrected' }] })).status).toBe(200)
    expect(await Promise.all(ids.map(revisionCount))).toEqual([1, 2])
    const [latest] = (await reader.get(`/v1/articles/${ids[1]}/revisions?limit=1`)).body.items
    expect(latest).toMatchObject({ fields: ['headline'], headline: 'Wire two, corrected', actor: { id: newsroom.users.editor.id } })
  })

  it('concurrent edits lose no revision: one per committed change, each at its own version', async () => {
    const id = await createViaApi()
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => editorApi.patch(`/v1/articles/${id}`, { lede: `Take ${i}` })))
    const committed = answers.filter((answer) => answer.status === 200)
    expect(committed.length).toBeGreaterThan(0)
    const revisions = await db.articleRevision.findMany({ where: { articleId: id }, orderBy: { version: 'asc' } })
    expect(revisions).toHaveLength(1 + committed.length)
    expect(new Set(revisions.map((revision) => revision.version)).size).toBe(revisions.length)
    const article = await db.article.findUniqueOrThrow({ where: { id } })
    expect(revisions.at(-1)).toMatchObject({ version: article.version, lede: article.lede })
  })
})

describe('revision numbers', () => {
  it('count 1, 2, 3 without gaps while each names the article version it produced, which moves also raise', async () => {
    const id = await createViaApi()
    expect((await editorApi.patch(`/v1/articles/${id}`, { lede: 'Two.' })).status).toBe(200)
    expect((await editorApi.post(`/v1/articles/${id}/transitions`, { to_state: 'in-review' })).status).toBe(200)
    expect((await editorApi.post(`/v1/articles/${id}/transitions`, { to_state: 'draft' })).status).toBe(200)
    expect((await editorApi.patch(`/v1/articles/${id}`, { lede: 'Three.' })).status).toBe(200)
    const items = (await reader.get(`/v1/articles/${id}/revisions`)).body.items as { number: number; version: number }[]
    expect(items.map(({ number, version }) => [number, version])).toEqual([
      [3, 5],
      [2, 2],
      [1, 1],
    ])
    expect((await reader.get(`/v1/articles/${id}`)).body.version).toBe(5)
  })
})

describe('restoring a revision', () => {
  it('makes a revision that names the revision it restored, and the next edit does not', async () => {
    const id = await createViaApi({ lede: 'First lede.' })
    await editorApi.patch(`/v1/articles/${id}`, { lede: 'Second lede.' })
    await editorApi.patch(`/v1/articles/${id}`, { lede: 'Third lede.' })
    const first = (await reader.get(`/v1/articles/${id}/revisions`)).body.items.at(-1)
    expect(first).toMatchObject({ number: 1, restored_from_revision_id: null, restored_from_revision_number: null })

    expect(await portal('editor').articles.restoreRevision({ article_id: id, revision_id: first.revision_id, version: 3 })).toMatchObject({ version: 4 })
    const [restore] = (await reader.get(`/v1/articles/${id}/revisions?limit=1`)).body.items
    expect(restore).toMatchObject({ number: 4, version: 4, lede: 'First lede.', restored_from_revision_id: first.revision_id, restored_from_revision_number: 1 })
    expect((await reader.get(`/v1/articles/${id}/revisions/${restore.revision_id}`)).body.restored_from_revision_number).toBe(1)

    // A move in between, then a content write that is not a PATCH (as the body backfill writes).
    expect((await editorApi.post(`/v1/articles/${id}/transitions`, { to_state: 'in-review' })).status).toBe(200)
    const current = await db.article.findUniqueOrThrow({ where: { id } })
    await updateReadVersion(current, { lede: 'Fifth lede.' })
    const [after] = (await reader.get(`/v1/articles/${id}/revisions?limit=1`)).body.items
    expect(after).toMatchObject({ number: 5, lede: 'Fifth lede.', restored_from_revision_id: null })
  })

  it('is a new revision with the old text, an article.updated event, and refuses a stale version with 412', async () => {
    const id = await createViaApi({ lede: 'First lede.' })
    const first = (await reader.get(`/v1/articles/${id}/revisions`)).body.items[0]
    await editorApi.patch(`/v1/articles/${id}`, { headline: 'Second headline', lede: 'Second lede.' })
    const eventsBefore = await updatedEvents(id)

    const stale = await portal('editor').articles.restoreRevision({ article_id: id, revision_id: first.revision_id, version: 1 }).catch((error: unknown) => error)
    expect(stale).toBeInstanceOf(TRPCError)
    expect((stale as TRPCError).code).toBe('PRECONDITION_FAILED')
    expect(await revisionCount(id)).toBe(2)

    const restored = await portal('editor').articles.restoreRevision({ article_id: id, revision_id: first.revision_id, version: 2 })
    expect(restored).toMatchObject({ headline: 'Harbour reopens', lede: 'First lede.', version: 3 })
    expect(await revisionCount(id)).toBe(3)
    expect(await updatedEvents(id)).toBe(eventsBefore + 1)
    const [latest] = (await reader.get(`/v1/articles/${id}/revisions?limit=1`)).body.items
    expect(latest).toMatchObject({ version: 3, fields: ['headline', 'lede'], actor: { id: newsroom.users.editor.id } })
  })

  it('follows the workflow: nobody restores into an archived article, a writer not into a published one', async () => {
    const writerArticle = await portal('writer').articles.create({ headline: 'Writer draft' })
    await portal('writer').articles.update({ article_id: writerArticle.article_id, version: 1, changes: { headline: 'Writer draft, edited' } })
    const [, original] = (await portal('writer').articles.revisions({ article_id: writerArticle.article_id, limit: 20, offset: 0 })).items
    for (const to_state of ['in-review', 'approved', 'published'] as const) {
      await portal(to_state === 'in-review' ? 'writer' : 'editor').articles.transition({ article_id: writerArticle.article_id, version: await versionOf(writerArticle.article_id), to_state })
    }
    const published = await db.article.findUniqueOrThrow({ where: { id: writerArticle.article_id } })
    const refused = await portal('writer')
      .articles.restoreRevision({ article_id: published.id, revision_id: original!.revision_id, version: published.version })
      .catch((error: unknown) => error)
    expect((refused as TRPCError).code).toBe('FORBIDDEN')

    await portal('editor').articles.transition({ article_id: published.id, version: await versionOf(published.id), to_state: 'archived' })
    const archived = await db.article.findUniqueOrThrow({ where: { id: published.id } })
    const refusedArchived = await portal('editor')
      .articles.restoreRevision({ article_id: archived.id, revision_id: original!.revision_id, version: archived.version })
      .catch((error: unknown) => error)
    expect((refusedArchived as TRPCError).code).toBe('CONFLICT')
    expect(await revisionCount(archived.id)).toBe(2)
  })
})

describe('tenancy and errors', () => {
  it("never shows another newsroom's revisions, and answers 404 for unknown ids", async () => {
    const id = await createViaApi()
    const foreign = apiClient(server.url, await other.token(['articles:read']))
    expect((await foreign.get(`/v1/articles/${id}/revisions`)).status).toBe(404)
    const [revision] = (await reader.get(`/v1/articles/${id}/revisions`)).body.items
    expect((await foreign.get(`/v1/articles/${id}/revisions/${revision.revision_id}`)).status).toBe(404)
    expect((await reader.get(`/v1/articles/${id}/revisions/rev_unknown`)).status).toBe(404)
    expect((await reader.get(`/v1/articles/${id}/revisions?limit=0`)).status).toBe(422)
    const writeOnly = apiClient(server.url, await newsroom.token(['articles:write']))
    expect((await writeOnly.get(`/v1/articles/${id}/revisions`)).status).toBe(403)
  })
})
