import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { db } from '../../lib/db/client.ts'
import { createId } from '../../lib/ids.ts'
import type { Role } from '../../lib/db/generated/enums.ts'
import { claimEditLease, leaseSeconds, releaseEditLease } from '../../lib/articles/edit-lease.ts'
import { watchArticle } from '../../lib/articles/watch-article.ts'
import type { Actor } from '../../lib/tenancy/actor.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { portalCaller } from '../support/portal-caller.ts'

// Issue 29: two editors who opened one story overwrote each other. An edit lease (one row per
// article, claimed in one statement) now says who has it open; every write by anyone else is
// refused with 409 article_locked until the lease lapses, is taken over, or the write says
// override_lock.


let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let editorToken: string
let adminToken: string

const portal = (role: Role) => portalCaller(newsroom, role)

async function draft(headline = 'Harbour plans'): Promise<string> {
  return (await portal('writer').articles.create({ headline, lede: 'First lede.' })).article_id
}

const versionOf = async (id: string) => (await db.article.findUniqueOrThrow({ where: { id } })).version

async function refusal(promise: Promise<unknown>): Promise<{ code?: string; message: string; extra?: Record<string, unknown>; cause?: { code?: string; extra?: Record<string, unknown> } }> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  expect(error).toBeDefined()
  return error as never
}

beforeAll(async () => {
  server = await startApiServer()
  newsroom = await createTestTenant()
  editorToken = await newsroom.token(['articles:read', 'articles:write'], 'editor')
  adminToken = await newsroom.token(['articles:read', 'articles:write'], 'admin')
})
afterAll(() => server.close())

describe('claiming a lease', () => {
  it('lets exactly one of many racing claims win; the others are told who holds it', async () => {
    const id = await draft('Racing claims')
    const editors: Actor[] = await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        const user = await db.user.create({ data: { id: createId('usr'), tenantId: newsroom.tenant.id, email: `racer${i}-${id}@x.example`, name: `Racer ${i}`, role: 'editor', passwordHash: 'x' } })
        return { tenant: newsroom.actor().tenant, user: { id: user.id, role: 'editor' as const } }
      }),
    )
    const outcomes = await Promise.allSettled(editors.map((actor) => claimEditLease(actor, id)))
    const won = outcomes.filter((outcome) => outcome.status === 'fulfilled')
    expect(won).toHaveLength(1)
    const winner = (won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof claimEditLease>>>).value.lock
    for (const outcome of outcomes.filter((o) => o.status === 'rejected')) {
      expect((outcome as PromiseRejectedResult).reason).toMatchObject({ status: 409, code: 'article_locked', extra: { holder_id: winner.holder_id, holder_name: winner.holder_name } })
    }
    expect(await db.articleLease.count({ where: { articleId: id } })).toBe(1)
    expect((await db.articleLease.findUniqueOrThrow({ where: { articleId: id } })).holderId).toBe(winner.holder_id)
  })

  it('shows the lease on the article record without changing its version or ETag, and renewing keeps since', async () => {
    const id = await draft('Record shows the lock')
    const api = apiClient(server.url, editorToken)
    const before = await api.get(`/v1/articles/${id}`)
    expect(before.body.lock).toBeNull()
    // Asked twice, so the answer is in the response cache: the claim must not be hidden by it.
    await api.get(`/v1/articles/${id}`)

    const claimed = await api.post(`/v1/articles/${id}/lock`)
    expect(claimed.status).toBe(200)
    expect(claimed.body.lock).toMatchObject({ holder_id: newsroom.users.editor.id, holder_name: `${newsroom.tenant.slug} editor` })
    expect(new Date(claimed.body.lock.expires_at).getTime() - new Date(claimed.body.lock.since).getTime()).toBe(leaseSeconds * 1000)

    const after = await api.get(`/v1/articles/${id}`)
    expect(after.body.lock).toEqual(claimed.body.lock)
    expect(after.body.version).toBe(before.body.version)
    expect(after.headers.get('etag')).toBe(before.headers.get('etag'))

    const renewed = await api.post(`/v1/articles/${id}/lock`)
    expect(renewed.body.lock.since).toBe(claimed.body.lock.since)
    expect(renewed.body.took_over_from).toBeNull()

    // The holder's own writes pass.
    expect((await api.patch(`/v1/articles/${id}`, { lede: 'Mine to change.' })).status).toBe(200)

    expect((await api.delete(`/v1/articles/${id}/lock`)).status).toBe(204)
    expect((await api.get(`/v1/articles/${id}`)).body.lock).toBeNull()
  })

  it('refuses a writer a lease on an article they may not edit, as it refuses the edit', async () => {
    const editorsDraft = (await portal('editor').articles.create({ headline: "Editor's own" })).article_id
    const answer = await portal('writer').articles.lease({ article_id: editorsDraft }).then(
      () => null,
      (error: { code: string; message: string }) => error,
    )
    expect(answer).toMatchObject({ code: 'FORBIDDEN', message: 'A writer can change only their own articles; ask an editor to change this one.' })
    expect(await db.articleLease.count({ where: { articleId: editorsDraft } })).toBe(0)
  })
})

describe('someone else’s live lease', () => {
  it('refuses every write path with 409 article_locked naming the holder and expiry, and changes nothing', async () => {
    const id = await draft('Every door')
    await portal('writer').articles.update({ article_id: id, version: await versionOf(id), changes: { lede: 'Second lede.' } })
    const revision = await db.articleRevision.findFirstOrThrow({ where: { articleId: id }, orderBy: { version: 'asc' } })
    const { lock } = await claimEditLease(newsroom.actor('writer'), id)
    const version = await versionOf(id)
    const api = apiClient(server.url, editorToken)

    const answers = [
      await api.patch(`/v1/articles/${id}`, { headline: 'Overwritten' }),
      await api.patch(`/v1/articles/${id}`, { slug: 'another-address' }),
      await api.post(`/v1/articles/${id}/transitions`, { to_state: 'in-review' }),
    ]
    for (const answer of answers) {
      expect(answer.status).toBe(409)
      expect(answer.body).toMatchObject({ code: 'article_locked', holder_id: lock.holder_id, holder_name: lock.holder_name, expires_at: lock.expires_at, since: lock.since })
      expect(answer.body.detail).toContain(`${lock.holder_name} is editing this article`)
    }

    const editor = portal('editor')
    const portalWrites = [
      () => editor.articles.update({ article_id: id, version, changes: { headline: 'Overwritten' } }),
      () => editor.articles.transition({ article_id: id, version, to_state: 'in-review' }),
      () => editor.articles.restoreRevision({ article_id: id, revision_id: revision.id, version }),
    ]
    for (const write of portalWrites) {
      const error = await refusal(write())
      expect(error.code).toBe('CONFLICT')
      expect(error.message).toContain(`${lock.holder_name} is editing this article`)
    }
    const article = await db.article.findUniqueOrThrow({ where: { id } })
    expect(article).toMatchObject({ version, headline: 'Every door', status: 'draft', slug: null })
  })

  it('refuses approve-and-publish and a schedule’s cancellation too', async () => {
    const id = await draft('Moves of an editor')
    await portal('writer').articles.transition({ article_id: id, version: await versionOf(id), to_state: 'in-review' })
    await claimEditLease(newsroom.actor('writer'), id)
    const error = await refusal(portal('editor').articles.approveAndPublish({ article_id: id, version: await versionOf(id) }))
    expect(error.code).toBe('CONFLICT')
    expect((await db.article.findUniqueOrThrow({ where: { id } })).status).toBe('in_review')

    await db.articleLease.deleteMany({ where: { articleId: id } })
    await portal('editor').articles.transition({ article_id: id, version: await versionOf(id), to_state: 'approved' })
    await portal('editor').articles.transition({ article_id: id, version: await versionOf(id), to_state: 'published', publish_at: new Date(Date.now() + 86_400_000).toISOString() })
    await claimEditLease(newsroom.actor('admin'), id)
    expect((await refusal(portal('editor').articles.cancelSchedule({ article_id: id, version: await versionOf(id) }))).code).toBe('CONFLICT')
    expect((await db.article.findUniqueOrThrow({ where: { id } })).scheduledPublishAt).not.toBeNull()
  })

  it('lets a write with override_lock through, and records it in the notes and the audit log', async () => {
    const id = await draft('Overridden')
    const { lock } = await claimEditLease(newsroom.actor('writer'), id)
    const api = apiClient(server.url, adminToken)
    const answer = await api.patch(`/v1/articles/${id}`, { headline: 'Correction at once', override_lock: true })
    expect(answer.status).toBe(200)
    expect(answer.body.headline).toBe('Correction at once')
    const moved = await api.post(`/v1/articles/${id}/transitions`, { to_state: 'in-review', override_lock: true })
    expect(moved.status).toBe(200)

    const notes = await db.articleNote.findMany({ where: { articleId: id, kind: 'lock_override' } })
    expect(notes).toHaveLength(2)
    expect(notes[0]).toMatchObject({ authorId: newsroom.users.admin.id, body: `Wrote over ${lock.holder_name}'s edit lease.` })
    const audit = await db.auditEntry.findMany({ where: { tenantId: newsroom.tenant.id, action: 'article.lock_overridden', targetId: id } })
    expect(audit).toHaveLength(2)
    expect(audit[0]).toMatchObject({ actorId: newsroom.users.admin.id, metadata: { holder_id: lock.holder_id } })
    // The override does not take the lease: the holder keeps it.
    expect((await db.articleLease.findUniqueOrThrow({ where: { articleId: id } })).holderId).toBe(lock.holder_id)
  })

  it('blocks nothing once it lapsed, and the next claim takes it without a take-over', async () => {
    const id = await draft('Lapsed')
    await claimEditLease(newsroom.actor('writer'), id, { now: new Date(Date.now() - (leaseSeconds + 5) * 1000) })
    const api = apiClient(server.url, editorToken)
    expect((await api.get(`/v1/articles/${id}`)).body.lock).toBeNull()
    expect((await api.patch(`/v1/articles/${id}`, { headline: 'After the lapse' })).status).toBe(200)
    const claimed = await api.post(`/v1/articles/${id}/lock`)
    expect(claimed.status).toBe(200)
    expect(claimed.body.took_over_from).toBeNull()
    expect(await db.articleNote.count({ where: { articleId: id, kind: 'take_over' } })).toBe(0)
  })
})

describe('taking over', () => {
  it('moves the lease, records it in History and the audit log, and refuses the former holder’s renewal and save', async () => {
    const id = await draft('Taken over')
    const writer = portal('writer')
    const first = await writer.articles.lease({ article_id: id })
    expect(first.mine).toBe(true)

    // The second person is told who has it and since when, and nothing is taken.
    const editor = portal('editor')
    const seen = await editor.articles.lease({ article_id: id })
    expect(seen).toMatchObject({ mine: false, lock: { holder_id: newsroom.users.writer.id, holder_name: `${newsroom.tenant.slug} writer`, since: first.lock.since } })

    const taken = await editor.articles.lease({ article_id: id, take_over: true })
    expect(taken).toMatchObject({ mine: true, lock: { holder_id: newsroom.users.editor.id }, took_over_from: { id: newsroom.users.writer.id, name: `${newsroom.tenant.slug} writer` } })

    // The former holder's heartbeat learns who has it now; their save is refused and changes nothing.
    const heartbeat = await writer.articles.lease({ article_id: id })
    expect(heartbeat).toMatchObject({ mine: false, lock: { holder_id: newsroom.users.editor.id, holder_name: `${newsroom.tenant.slug} editor` } })
    const save = await refusal(writer.articles.update({ article_id: id, version: await versionOf(id), changes: { lede: 'What the writer typed' } }))
    expect(save.message).toContain(`${newsroom.tenant.slug} editor is editing this article`)
    expect((await db.article.findUniqueOrThrow({ where: { id } })).lede).toBe('First lede.')

    const history = await editor.articles.history({ article_id: id })
    expect(history.at(-1)).toMatchObject({ kind: 'take_over', actor: { id: newsroom.users.editor.id }, note: `Took over editing from ${newsroom.tenant.slug} writer.` })
    const audit = await db.auditEntry.findFirstOrThrow({ where: { action: 'article.lock_taken_over', targetId: id } })
    expect(audit).toMatchObject({ actorId: newsroom.users.editor.id, metadata: { from_holder_id: newsroom.users.writer.id } })

    // The watcher of the page sees the new holder at once.
    const watched = await watchArticle(newsroom.actor('writer'), id)
    expect(watched).toMatchObject({ unchanged: false, lock: { holder_id: newsroom.users.editor.id } })
    // And the former holder's release leaves the new holder's lease alone.
    await writer.articles.releaseLease({ article_id: id })
    expect((await db.articleLease.findUniqueOrThrow({ where: { articleId: id } })).holderId).toBe(newsroom.users.editor.id)
  })

  it('keeps the lease while another tab of the same person still claims it: a save in one tab lets go of that tab only', async () => {
    const id = await draft('Two tabs')
    const writer = portal('writer')
    const tabA = 'tab-a-0123456789'
    const tabB = 'tab-b-0123456789'
    const claimedB = await writer.articles.lease({ article_id: id, session: tabB })
    const claimedA = await writer.articles.lease({ article_id: id, session: tabA })
    expect(claimedA).toMatchObject({ mine: true, took_over_from: null, lock: { since: claimedB.lock.since } })
    const before = await watchArticle(newsroom.actor('admin'), id)

    // Tab A saved and lets go: tab B's claim keeps the lease, as the colleague and the watch see it.
    expect(await writer.articles.releaseLease({ article_id: id, session: tabA })).toEqual({ released: false })
    expect(await portal('admin').articles.lease({ article_id: id })).toMatchObject({ mine: false, lock: { holder_id: newsroom.users.writer.id } })
    expect(await watchArticle(newsroom.actor('admin'), id, before.tag)).toMatchObject({ unchanged: true })
    const api = apiClient(server.url, adminToken)
    expect((await api.patch(`/v1/articles/${id}`, { headline: 'Not while tab B edits' })).status).toBe(409)

    // Tab A's release again, or its claim once lapsed, changes nothing; tab B's release ends the lease.
    expect(await writer.articles.releaseLease({ article_id: id, session: tabA })).toEqual({ released: false })
    expect(await writer.articles.releaseLease({ article_id: id, session: tabB })).toEqual({ released: true })
    expect(await db.articleLease.count({ where: { articleId: id } })).toBe(0)
    expect((await api.patch(`/v1/articles/${id}`, { headline: 'Free again' })).status).toBe(200)
  })

  it('lets a tab that vanished without a release stop holding the lease when its claim lapses', async () => {
    const id = await draft('A closed laptop')
    const writer = newsroom.actor('writer')
    const long = new Date(Date.now() - (leaseSeconds + 5) * 1000)
    // Tab B claimed long ago and was never heard from again; tab A claims now and saves.
    await claimEditLease(writer, id, { session: 'tab-b-0123456789', now: long })
    await claimEditLease(writer, id, { session: 'tab-a-0123456789' })
    expect(await releaseEditLease(writer, id, { session: 'tab-a-0123456789' })).toEqual({ released: true })
    expect(await db.articleLease.count({ where: { articleId: id } })).toBe(0)
  })

  it('runs the lease until the last live claim of its sessions ends, and a take-over drops them all', async () => {
    const id = await draft('Ends with the last claim')
    const writer = newsroom.actor('writer')
    const earlier = new Date(Date.now() - 60_000)
    await claimEditLease(writer, id, { session: 'tab-b-0123456789', now: earlier })
    const { lock } = await claimEditLease(writer, id, { session: 'tab-a-0123456789' })
    await releaseEditLease(writer, id, { session: 'tab-a-0123456789' })
    // Tab B's claim was made a minute earlier: the lease now ends when it does.
    const kept = await db.articleLease.findUniqueOrThrow({ where: { articleId: id } })
    expect(kept.expiresAt.getTime()).toBe(earlier.getTime() + leaseSeconds * 1000)
    expect(kept.since.toISOString()).toBe(lock.since)

    await claimEditLease(writer, id, { session: 'tab-a-0123456789' })
    const taken = await claimEditLease(newsroom.actor('editor'), id, { session: 'editor-tab-0123456789', takeOver: true })
    expect(taken.took_over_from).toMatchObject({ id: newsroom.users.writer.id })
    expect((await db.articleLease.findUniqueOrThrow({ where: { articleId: id } })).sessions).toEqual({ 'editor-tab-0123456789': expect.any(Number) })
    // Neither of the former holder's tabs releases the new holder's lease.
    expect(await releaseEditLease(writer, id, { session: 'tab-b-0123456789' })).toEqual({ released: false })
    expect((await db.articleLease.findUniqueOrThrow({ where: { articleId: id } })).holderId).toBe(newsroom.users.editor.id)
  })

  it('lets /v1 DELETE end the whole lease, whichever sessions claimed it', async () => {
    const id = await draft('Released by the API')
    const writer = newsroom.actor('writer')
    await claimEditLease(writer, id, { session: 'tab-b-0123456789' })
    await claimEditLease(writer, id)
    expect(await releaseEditLease(writer, id)).toEqual({ released: true })
    expect(await db.articleLease.count({ where: { articleId: id } })).toBe(0)
  })

  it('answers a watcher "unchanged" until something it shows changes', async () => {
    const id = await draft('Watched')
    const writer = newsroom.actor('writer')
    const first = await watchArticle(writer, id)
    expect(first.unchanged).toBe(false)
    if (first.unchanged) return
    const again = await watchArticle(writer, id, first.tag)
    expect(again.unchanged).toBe(true)
    await portal('editor').articles.update({ article_id: id, version: first.version, changes: { lede: 'Changed underneath' } })
    const changed = await watchArticle(writer, id, first.tag)
    expect(changed).toMatchObject({ unchanged: false, version: first.version + 1, edited_by: `${newsroom.tenant.slug} editor` })
  })

  it('keeps another newsroom out: its article is a 404', async () => {
    const other = await createTestTenant()
    const foreign = (await db.article.create({ data: { id: createId('art'), tenantId: other.tenant.id, headline: 'Elsewhere', authorId: other.users.editor.id } })).id
    expect((await apiClient(server.url, editorToken).post(`/v1/articles/${foreign}/lock`)).status).toBe(404)
    expect(await db.articleLease.count({ where: { articleId: foreign } })).toBe(0)
    expect((await refusal(portal('editor').articles.lease({ article_id: foreign, take_over: true }))).code).toBe('NOT_FOUND')
    await expect(watchArticle(newsroom.actor('editor'), foreign)).rejects.toMatchObject({ code: 'not_found' })
  })
})
