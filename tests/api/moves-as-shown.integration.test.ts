import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TRPCError } from '@trpc/server'
import type { oas31 } from 'zod-openapi'
import { db } from '../../lib/db/client.ts'
import type { Role } from '../../lib/db/generated/enums.ts'
import { buildOpenApiDocument } from '../../lib/api/openapi/openapi-document.ts'
import { watchArticle } from '../../lib/articles/watch-article.ts'
import { createCallerFactory, type PortalContext } from '../../lib/trpc/init.ts'
import { appRouter } from '../../lib/trpc/routers/app-router.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// Issue 45, points 1 and 3: a move is made only from the state (and version) the person saw
// when they were asked, through the portal and /v1 alike; and a page watching an article is
// told who made its current version and what they did, not who last edited its text.

const createCaller = createCallerFactory(appRouter)
let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant

function as(role: Role) {
  const user = newsroom.users[role]
  const context: PortalContext = {
    member: { id: user.id, email: user.email, name: `${newsroom.tenant.slug} ${role}`, role, tenantId: newsroom.tenant.id, tenantName: newsroom.tenant.name },
    tenant: newsroom.actor(role).tenant,
  }
  return createCaller(context)
}

const article = (id: string) => db.article.findUniqueOrThrow({ where: { id } })

async function inReview(headline: string): Promise<string> {
  const created = await as('writer').articles.create({ headline, body: '<p>First paragraph.</p>' })
  await as('writer').articles.transition({ article_id: created.article_id, version: created.version, to_state: 'in-review' })
  return created.article_id
}

beforeAll(async () => {
  server = await startApiServer()
  newsroom = await createTestTenant()
})
afterAll(async () => server.close())

describe('a move carries the state it was asked for', () => {
  it('refuses, in the portal, a send-back meant for a story in review once a colleague published it, and leaves it live', async () => {
    const id = await inReview('Send back meets a publication')
    const shown = await article(id)
    // Editor A publishes while B's dialog is open.
    await as('admin').articles.approveAndPublish({ article_id: id, version: shown.version })
    // B confirms the question the dialog asked, for the state and version it showed.
    const refused = await as('editor')
      .articles.transition({ article_id: id, version: shown.version, expected_state: 'in-review', to_state: 'draft', note: 'Needs a second source.' })
      .then(
        () => undefined,
        (error: unknown) => error,
      )
    expect(refused).toBeInstanceOf(TRPCError)
    expect((refused as TRPCError).code).toBe('PRECONDITION_FAILED')
    expect(await article(id)).toMatchObject({ status: 'published' })
  })

  it('refuses, in the portal, a move whose expected state is not current even when the version sent is current', async () => {
    const id = await inReview('Expected state alone')
    await as('admin').articles.approveAndPublish({ article_id: id, version: (await article(id)).version })
    const now = await article(id)
    const refused = await as('editor')
      .articles.transition({ article_id: id, version: now.version, expected_state: 'in-review', to_state: 'archived' })
      .then(
        () => undefined,
        (error: unknown) => error as TRPCError,
      )
    expect(refused?.code).toBe('PRECONDITION_FAILED')
    expect(refused?.message).toMatch(/published now .*not in review as your move expected: nothing was moved/)
    expect(await article(id)).toMatchObject({ status: 'published', version: now.version })
  })

  it('refuses, through /v1, a move sent with expected_state once the article is elsewhere (412 problem), and makes it when the state holds', async () => {
    const client = apiClient(server.url, await newsroom.token(['articles:read', 'articles:write'], 'editor'))
    const id = await inReview('Expected state over the API')
    await as('admin').articles.approveAndPublish({ article_id: id, version: (await article(id)).version })
    const refused = await client.post(`/v1/articles/${id}/transitions`, { to_state: 'draft', expected_state: 'in-review' })
    expect(refused.status).toBe(412)
    expect(refused.body).toMatchObject({ code: 'precondition_failed' })
    expect((await article(id)).status).toBe('published')

    const unpublished = await client.post(`/v1/articles/${id}/transitions`, { to_state: 'draft', expected_state: 'published' })
    expect(unpublished.status).toBe(200)
    expect(unpublished.body).toMatchObject({ status: 'draft' })
  })

  it('declares expected_state in the OpenAPI document of the transition', () => {
    const document = buildOpenApiDocument()
    const schema = document.components?.schemas?.TransitionArticle as oas31.SchemaObject
    expect(Object.keys(schema.properties ?? {})).toContain('expected_state')
  })
})

describe('a watching page is told who made the current version', () => {
  it("names the editor who sent the writer's story back, with her note, not the writer who wrote it last", async () => {
    const id = await inReview('Named send-back')
    const shown = await article(id)
    await as('editor').articles.transition({ article_id: id, version: shown.version, to_state: 'draft', note: 'The second source is missing.' })
    const watched = await watchArticle(newsroom.actor('writer'), id)
    expect(watched).toMatchObject({
      unchanged: false,
      status: 'draft',
      last_change: { actor_id: newsroom.users.editor.id, actor_name: `${newsroom.tenant.slug} editor`, move: { from_state: 'in-review', to_state: 'draft' }, note: 'The second source is missing.' },
    })
  })

  it('names the person who approved and published, and the editor who took it down rather than the last one to save', async () => {
    const id = await inReview('Named publication')
    await as('editor').articles.update({ article_id: id, version: (await article(id)).version, changes: { lede: 'Edited by the editor.' } })
    await as('admin').articles.approveAndPublish({ article_id: id, version: (await article(id)).version })
    expect(await watchArticle(newsroom.actor('editor'), id)).toMatchObject({ last_change: { actor_id: newsroom.users.admin.id, move: { to_state: 'published' } } })
    await as('admin').articles.transition({ article_id: id, version: (await article(id)).version, to_state: 'draft' })
    expect(await watchArticle(newsroom.actor('editor'), id)).toMatchObject({ last_change: { actor_id: newsroom.users.admin.id, move: { from_state: 'published', to_state: 'draft' } } })
  })

  it('names the person who saved', async () => {
    const id = await inReview('Named save')
    await as('editor').articles.update({ article_id: id, version: (await article(id)).version, changes: { headline: 'Named save, edited' } })
    expect(await watchArticle(newsroom.actor('writer'), id)).toMatchObject({ last_change: { actor_id: newsroom.users.editor.id, move: null } })
  })
})
