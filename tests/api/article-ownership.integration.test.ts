import { TRPCError } from '@trpc/server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { db } from '../../lib/db/client.ts'
import type { Role } from '../../lib/db/generated/enums.ts'
import { transitionArticle } from '../../lib/articles/transition-article.ts'
import { createCallerFactory, type PortalContext } from '../../lib/trpc/init.ts'
import { appRouter } from '../../lib/trpc/routers/app-router.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// Issue 28: a writer's "Submit for review" and "Withdraw to draft" moved an editor's articles,
// on a page that said "A writer can change only their own articles". One rule now decides
// (articleActionRefusal) for every door and for what the portal offers.

const createCaller = createCallerFactory(appRouter)

let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant

function portal(role: Role) {
  const user = newsroom.users[role]
  const context: PortalContext = {
    member: { id: user.id, email: user.email, name: `${newsroom.tenant.slug} ${role}`, role, tenantId: newsroom.tenant.id, tenantName: newsroom.tenant.name },
    tenant: newsroom.actor(role).tenant,
  }
  return createCaller(context)
}

async function rejection(promise: Promise<unknown>): Promise<TRPCError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  expect(error).toBeInstanceOf(TRPCError)
  return error as TRPCError
}

/** What a refused action must leave untouched: the row, its history, its revisions and its events. */
async function snapshot(id: string) {
  const article = await db.article.findUniqueOrThrow({ where: { id } })
  return {
    status: article.status,
    version: article.version,
    headline: article.headline,
    slug: article.slug,
    transitions: await db.articleTransition.count({ where: { articleId: id } }),
    revisions: await db.articleRevision.count({ where: { articleId: id } }),
    events: await db.event.count({ where: { tenantId: newsroom.tenant.id, data: { path: ['article_id'], equals: id } } }),
  }
}

const versionOf = async (id: string) => (await db.article.findUniqueOrThrow({ where: { id } })).version
const move = async (role: Role, id: string, to: 'draft' | 'in-review' | 'approved') => portal(role).articles.transition({ article_id: id, version: await versionOf(id), to_state: to })

beforeAll(async () => {
  server = await startApiServer()
  newsroom = await createTestTenant()
})
afterAll(() => server.close())

describe("a writer and an editor's article", () => {
  it('cannot submit it for review or withdraw it to draft through the portal: FORBIDDEN, nothing changes, nothing offered', async () => {
    const draft = (await portal('editor').articles.create({ headline: "The editor's draft" })).article_id
    const before = await snapshot(draft)
    const submit = await rejection(move('writer', draft, 'in-review'))
    expect(submit.code).toBe('FORBIDDEN')
    expect(submit.message).toBe('A writer can move only their own articles; ask an editor or the author to move this one.')
    expect(await snapshot(draft)).toEqual(before)

    const inReview = (await portal('editor').articles.create({ headline: "The editor's piece in review", status: 'in-review' })).article_id
    const reviewed = await snapshot(inReview)
    const withdraw = await rejection(move('writer', inReview, 'draft'))
    expect(withdraw.code).toBe('FORBIDDEN')
    expect(withdraw.message).toBe(submit.message)
    expect(await snapshot(inReview)).toEqual(reviewed)

    // The page is asked the same rule: no move is offered, and it says why.
    for (const id of [draft, inReview]) {
      const page = await portal('writer').articles.get({ article_id: id })
      expect(page.moves).toEqual([])
      expect(page.noMovesReason).toBe(submit.message)
      expect(page.canApproveAndPublish).toBe(false)
      expect(page.readOnlyReason).toBe('A writer can change only their own articles; ask an editor to change this one.')
    }
  })

  it('cannot restore a revision of it or change its slug: FORBIDDEN, nothing changes', async () => {
    const id = (await portal('editor').articles.create({ headline: 'First words of the editor' })).article_id
    await portal('editor').articles.update({ article_id: id, version: 1, changes: { headline: 'Second words of the editor' } })
    const [, first] = (await portal('editor').articles.revisions({ article_id: id, limit: 10, offset: 0 })).items
    const before = await snapshot(id)

    const restore = await rejection(portal('writer').articles.restoreRevision({ article_id: id, revision_id: first!.revision_id, version: before.version }))
    expect(restore.code).toBe('FORBIDDEN')
    expect(restore.message).toBe('A writer can change only their own articles; ask an editor to change this one.')
    const slug = await rejection(portal('writer').articles.update({ article_id: id, version: before.version, changes: { slug: 'taken-over-by-a-writer' } }))
    expect(slug.code).toBe('FORBIDDEN')
    expect(slug.message).toBe(restore.message)
    expect(await snapshot(id)).toEqual(before)
  })

  it('is refused by the domain itself, whatever door calls it', async () => {
    const id = (await portal('editor').articles.create({ headline: 'Refused below the doors' })).article_id
    await expect(transitionArticle(newsroom.actor('writer'), id, { to_state: 'in-review' })).rejects.toMatchObject({ status: 403, code: 'forbidden' })
    expect((await db.article.findUniqueOrThrow({ where: { id } })).status).toBe('draft')
  })

  it('/v1 refuses the move, PATCH and slug change with a writer-owned token, and the article stays as it was', async () => {
    const editorApi = apiClient(server.url, await newsroom.token(['articles:read', 'articles:write'], 'editor'))
    // A writer's role grants no articles:write, so a writer's token cannot carry it: /v1 refuses at
    // the scope check before the domain's rule is asked (both say 403).
    const writerApi = apiClient(server.url, await newsroom.token(['articles:read'], 'writer'))
    const created = await editorApi.post('/v1/articles', { headline: 'Wire copy for the editor', status: 'in-review' })
    const id = created.body.article_id as string
    const before = await snapshot(id)
    for (const answer of [
      await writerApi.post(`/v1/articles/${id}/transitions`, { to_state: 'draft' }),
      await writerApi.patch(`/v1/articles/${id}`, { slug: 'moved-by-a-writer' }),
      await writerApi.patch(`/v1/articles/${id}`, { headline: 'Rewritten by a writer' }),
    ]) {
      expect(answer.status).toBe(403)
      expect(answer.headers.get('content-type')).toContain('application/problem+json')
    }
    expect(await snapshot(id)).toEqual(before)
  })
})

describe('a writer and their own article', () => {
  it('still submits it, withdraws it and submits it again, and is offered exactly those moves', async () => {
    const id = (await portal('writer').articles.create({ headline: 'My own story' })).article_id
    expect((await portal('writer').articles.get({ article_id: id })).moves).toEqual(['in-review'])
    expect((await move('writer', id, 'in-review')).article.status).toBe('in-review')
    expect((await portal('writer').articles.get({ article_id: id })).moves).toEqual(['draft'])
    expect((await move('writer', id, 'draft')).article.status).toBe('draft')
    expect((await move('writer', id, 'in-review')).article.status).toBe('in-review')
    expect(await versionOf(id)).toBe(4)

    // Editors' moves stay theirs: approving is refused by role, with the role's words.
    const approve = await rejection(move('writer', id, 'approved'))
    expect(approve.code).toBe('FORBIDDEN')
    expect(approve.message).toBe('A writer cannot move an article from in-review to approved; ask an editor.')
    // Once it has left review, nothing is offered to its writer, and the page says why.
    await move('editor', id, 'approved')
    const page = await portal('writer').articles.get({ article_id: id })
    expect(page.moves).toEqual([])
    expect(page.noMovesReason).toBe('A writer cannot move an article from approved to published; ask an editor.')
    expect(page.canManageSchedule).toBe(false)
  })

  it('an editor still moves any article', async () => {
    const id = (await portal('writer').articles.create({ headline: "The writer's draft", status: 'in-review' })).article_id
    expect((await portal('editor').articles.get({ article_id: id })).moves).toEqual(['draft', 'approved', 'archived'])
    expect((await move('editor', id, 'draft')).article.status).toBe('draft')
  })
})
