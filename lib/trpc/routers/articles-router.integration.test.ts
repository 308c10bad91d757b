import { isMove } from '../../articles/article-history.ts'
import { TRPCError } from '@trpc/server'
import { beforeAll, describe, expect, it } from 'vitest'
import { db } from '../../db/client.ts'
import type { Role } from '../../db/generated/enums.ts'
import { createTestTenant, type TestTenant } from '../../../tests/support/fixtures.ts'
import { createCallerFactory, type PortalContext } from '../init.ts'
import { appRouter } from './app-router.ts'

const createCaller = createCallerFactory(appRouter)

let newsroom: TestTenant
let other: TestTenant

function contextOf(tenant: TestTenant, role: Role): PortalContext {
  const user = tenant.users[role]
  const acting = tenant.actor(role).tenant
  return {
    member: { id: user.id, email: user.email, name: `${tenant.tenant.slug} ${role}`, role, tenantId: tenant.tenant.id, tenantName: tenant.tenant.name },
    tenant: acting,
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

/** The version a page showing the article now would send with a move. */
const versionOf = async (id: string) => (await db.article.findUniqueOrThrow({ where: { id } })).version

async function articleInReview(headline: string) {
  const created = await as('writer').articles.create({ headline, tags: ['workflow'] })
  await as('writer').articles.transition({ article_id: created.article_id, version: await versionOf(created.article_id), to_state: 'in-review' })
  return created.article_id
}

async function snapshot(id: string) {
  const article = await db.article.findUniqueOrThrow({ where: { id } })
  const transitions = await db.articleTransition.count({ where: { articleId: id } })
  const events = await db.event.count({ where: { tenantId: newsroom.tenant.id } })
  return { status: article.status, version: article.version, publishedAt: article.publishedAt, scheduledPublishAt: article.scheduledPublishAt, transitions, events }
}

beforeAll(async () => {
  newsroom = await createTestTenant()
  other = await createTestTenant()
})

describe('a writer', () => {
  it('creates an article as its author and submits it for review', async () => {
    const created = await as('writer').articles.create({ headline: '  Harbour reopens  ', lede: 'After the storm.', body: '<p>Boats are back.</p>', department_id: newsroom.departments[0]!.id, tags: ['local', 'local'] })
    expect(created).toMatchObject({ headline: 'Harbour reopens', status: 'draft', author_id: newsroom.users.writer.id, tags: ['local'], version: 1 })

    const { article, moves, canManageSchedule } = await as('writer').articles.get({ article_id: created.article_id })
    expect(article.article_id).toBe(created.article_id)
    expect(moves).toEqual(['in-review'])
    expect(canManageSchedule).toBe(false)

    const moved = await as('writer').articles.transition({ article_id: created.article_id, version: await versionOf(created.article_id), to_state: 'in-review' })
    expect(moved.article.status).toBe('in-review')
    expect((await as('writer').articles.get({ article_id: created.article_id })).moves).toEqual(['draft'])
  })

  it('cannot approve: FORBIDDEN with the domain\'s words, and nothing changes', async () => {
    const id = await articleInReview('Writer tries to approve')
    const before = await snapshot(id)
    const error = await rejection(as('writer').articles.transition({ article_id: id, version: await versionOf(id), to_state: 'approved' }))
    expect(error.code).toBe('FORBIDDEN')
    expect(error.message).toBe('A writer cannot move an article from in-review to approved; ask an editor.')
    expect(await snapshot(id)).toEqual(before)
  })

  it('cannot publish, schedule or cancel a schedule: FORBIDDEN, and nothing changes', async () => {
    const id = await articleInReview('Writer tries to publish')
    await as('editor').articles.transition({ article_id: id, version: await versionOf(id), to_state: 'approved' })
    const before = await snapshot(id)

    expect((await rejection(as('writer').articles.transition({ article_id: id, version: await versionOf(id), to_state: 'published' }))).code).toBe('FORBIDDEN')
    const future = new Date(Date.now() + 86_400_000).toISOString()
    expect((await rejection(as('writer').articles.transition({ article_id: id, version: await versionOf(id), to_state: 'published', publish_at: future }))).code).toBe('FORBIDDEN')
    expect(await snapshot(id)).toEqual(before)

    await as('editor').articles.transition({ article_id: id, version: await versionOf(id), to_state: 'published', publish_at: future })
    const scheduled = await snapshot(id)
    expect((await rejection(as('writer').articles.cancelSchedule({ article_id: id, version: await versionOf(id) }))).code).toBe('FORBIDDEN')
    expect(await snapshot(id)).toEqual(scheduled)
    expect(scheduled.scheduledPublishAt?.toISOString()).toBe(future)
  })
})

describe('an editor', () => {
  it('approves and publishes: published_at and the public url are set', async () => {
    const id = await articleInReview('Council approves riverside plan')
    const editor = as('editor')
    const approved = await editor.articles.get({ article_id: id })
    expect(approved.moves).toEqual(['draft', 'approved', 'archived'])
    await editor.articles.transition({ article_id: id, version: await versionOf(id), to_state: 'approved' })
    expect((await editor.articles.get({ article_id: id })).moves).toEqual(['published', 'draft', 'in-review', 'archived'])
    const { article, scheduled } = await editor.articles.transition({ article_id: id, version: await versionOf(id), to_state: 'published' })
    expect(scheduled).toBe(false)
    expect(article.status).toBe('published')
    expect(article.published_at).not.toBeNull()
    expect(article.url).toMatch(new RegExp(`^https://${newsroom.tenant.slug}\\.example/articles/council-approves-riverside-plan-`))
  })

  it('schedules in UTC and cancels the schedule; the history shows who did what', async () => {
    const id = await articleInReview('Scheduled story')
    await as('editor').articles.transition({ article_id: id, version: await versionOf(id), to_state: 'approved' })
    const publishAt = '2099-03-01T14:30:00.000Z'
    const { article, scheduled } = await as('editor').articles.transition({ article_id: id, version: await versionOf(id), to_state: 'published', publish_at: publishAt })
    expect(scheduled).toBe(true)
    expect(article).toMatchObject({ status: 'approved', scheduled_publish_at: publishAt, published_at: null })

    const history = (await as('writer').articles.history({ article_id: id })).filter(isMove)
    expect(history.map((row) => [row.from_state, row.to_state, row.actor?.name ?? null, row.publish_at])).toEqual([
      ['draft', 'in-review', `${newsroom.tenant.slug} writer`, null],
      ['in-review', 'approved', `${newsroom.tenant.slug} editor`, null],
      ['approved', 'published', `${newsroom.tenant.slug} editor`, publishAt],
    ])

    const cancelled = await as('admin').articles.cancelSchedule({ article_id: id, version: await versionOf(id) })
    expect(cancelled).toMatchObject({ status: 'approved', scheduled_publish_at: null })

    // The cancellation is a history row of its own: who took back which schedule.
    const after = (await as('writer').articles.history({ article_id: id })).filter(isMove)
    expect(after).toHaveLength(4)
    expect(after[3]).toMatchObject({ from_state: 'approved', to_state: 'approved', actor: { name: `${newsroom.tenant.slug} admin` }, publish_at: publishAt, schedule_cancelled: true })
    expect(after.slice(0, 3).every((row) => !row.schedule_cancelled)).toBe(true)
    // Cancelling again changes nothing and writes no row.
    await as('admin').articles.cancelSchedule({ article_id: id, version: await versionOf(id) })
    expect(await as('writer').articles.history({ article_id: id })).toHaveLength(4)
  })

  it('every move the article page offers carries a note into the thread with its move: submit, approve, approve and publish, schedule, unpublish, archive, restore', async () => {
    const noted = async (id: string) =>
      (await as('writer').articles.notes({ article_id: id, limit: 20, offset: 0 })).items.map((note) => [note.move?.from_state, note.move?.to_state, note.author?.name, note.body])
    const editor = `${newsroom.tenant.slug} editor`
    const created = await as('writer').articles.create({ headline: 'Noted at every move' })
    const id = created.article_id
    await as('writer').articles.transition({ article_id: id, version: await versionOf(id), to_state: 'in-review', note: 'Ready: both sources named.' })
    await as('editor').articles.approveAndPublish({ article_id: id, version: await versionOf(id), note: 'Cleared by legal at <b>noon</b>.' })
    await as('editor').articles.transition({ article_id: id, version: await versionOf(id), to_state: 'draft', note: 'Pulled: the council corrected its figures.' })
    await as('editor').articles.transition({ article_id: id, version: await versionOf(id), to_state: 'archived', note: 'Superseded by the follow-up.' })
    await as('editor').articles.transition({ article_id: id, version: await versionOf(id), to_state: 'draft', note: 'Back for the anniversary piece.' })
    await as('writer').articles.transition({ article_id: id, version: await versionOf(id), to_state: 'in-review' })
    await as('editor').articles.transition({ article_id: id, version: await versionOf(id), to_state: 'approved', note: 'Good to go.' })
    await as('editor').articles.transition({ article_id: id, version: await versionOf(id), to_state: 'published', publish_at: '2099-03-01T06:00:00.000Z', note: 'For the morning.' })
    expect(await noted(id)).toEqual([
      ['approved', 'published', editor, 'For the morning.'],
      ['in-review', 'approved', editor, 'Good to go.'],
      ['archived', 'draft', editor, 'Back for the anniversary piece.'],
      ['draft', 'archived', editor, 'Superseded by the follow-up.'],
      ['published', 'draft', editor, 'Pulled: the council corrected its figures.'],
      // Approve and publish: the note goes with the publication, the move the person named.
      ['approved', 'published', editor, 'Cleared by legal at noon.'],
      ['draft', 'in-review', `${newsroom.tenant.slug} writer`, 'Ready: both sources named.'],
    ])
    // A note that is only markup is empty once sanitised: refused as the field's error, nothing moves.
    const inReview = await articleInReview('Noted with nothing')
    const before = await snapshot(inReview)
    const error = await rejection(as('editor').articles.approveAndPublish({ article_id: inReview, version: await versionOf(inReview), note: '<br>' }))
    expect(error.code).toBe('UNPROCESSABLE_CONTENT')
    expect(JSON.stringify(error.cause ?? error)).toContain('note must not be empty')
    expect(await snapshot(inReview)).toEqual(before)
  })

  it('is told when someone else moved the article first: CONFLICT naming the current state, when it sends the version it saw moved', async () => {
    const id = await articleInReview('Two editors approve at once')
    await as('admin').articles.transition({ article_id: id, version: await versionOf(id), to_state: 'approved' })
    await as('admin').articles.transition({ article_id: id, version: await versionOf(id), to_state: 'published' })
    const error = await rejection(as('editor').articles.transition({ article_id: id, version: await versionOf(id), to_state: 'approved' }))
    expect(error.code).toBe('CONFLICT')
    expect(error.message).toContain('cannot move from published to approved')
  })
})

describe('a move from a page that someone else\'s change outdated (issue 28)', () => {
  it('"Send back to draft" from a stale "In review" page after an editor approved and published: PRECONDITION_FAILED saying who did what when, and the article stays live', async () => {
    const id = await articleInReview('Stale page, live story')
    // The admin's page loaded the article in review; its version is what their click sends.
    const shown = await versionOf(id)
    expect((await as('admin').articles.get({ article_id: id })).moves).toContain('draft')
    await as('editor').articles.approveAndPublish({ article_id: id, version: shown })
    const live = await snapshot(id)

    const error = await rejection(as('admin').articles.transition({ article_id: id, version: shown, to_state: 'draft' }))
    expect(error.code).toBe('PRECONDITION_FAILED')
    const at = (await db.articleTransition.findFirstOrThrow({ where: { articleId: id, toState: 'published' } })).createdAt.toISOString().slice(11, 16)
    // A change made on another UTC day than the answer's names the day too (a run across midnight).
    expect(error.message.replace(/ UTC on [^;,]+/g, ' UTC')).toBe(
      `This article changed after the version you saw (${shown}): it was approved and published by ${newsroom.tenant.slug} editor at ${at} UTC; ` +
        `it is now published, at version ${shown + 2}. Look at it again and decide whether your change still applies.`,
    )
    expect(await snapshot(id)).toEqual(live)
    expect(live.status).toBe('published')

    // Asked again from the page as it is now, the same person's move is the one they now see.
    const unpublished = await as('admin').articles.transition({ article_id: id, version: shown + 2, to_state: 'draft' })
    expect(unpublished.article).toMatchObject({ status: 'draft', url: null })
  })

  it('every move and schedule checks the version: approve and publish, schedule, cancel schedule, archive, restore to draft', async () => {
    const id = await articleInReview('Every move states its version')
    const stale = await versionOf(id)
    await as('writer').articles.update({ article_id: id, version: stale, changes: { headline: 'Every move states its version, edited' } })
    const edited = await snapshot(id)
    const refusals = [
      () => as('editor').articles.approveAndPublish({ article_id: id, version: stale }),
      () => as('editor').articles.transition({ article_id: id, version: stale, to_state: 'approved' }),
      () => as('editor').articles.transition({ article_id: id, version: stale, to_state: 'archived' }),
    ]
    for (const refusal of refusals) {
      const error = await rejection(refusal())
      expect(error.code).toBe('PRECONDITION_FAILED')
      expect(error.message).toContain(`it was edited (headline) by ${newsroom.tenant.slug} writer at `)
    }
    expect(await snapshot(id)).toEqual(edited)

    await as('editor').articles.transition({ article_id: id, version: await versionOf(id), to_state: 'approved' })
    const approved = await versionOf(id)
    const future = new Date(Date.now() + 86_400_000).toISOString()
    await as('admin').articles.transition({ article_id: id, version: approved, to_state: 'published', publish_at: future })
    const scheduled = await snapshot(id)
    const reschedule = await rejection(as('editor').articles.transition({ article_id: id, version: approved, to_state: 'published', publish_at: future }))
    expect(reschedule.message).toContain(`it was scheduled to publish at ${future.slice(11, 16)} UTC`)
    expect(reschedule.message).toContain(`it is now approved, scheduled to publish at ${future.slice(11, 16)} UTC`)
    await as('admin').articles.cancelSchedule({ article_id: id, version: approved + 1 })
    const cancelAgain = await rejection(as('editor').articles.cancelSchedule({ article_id: id, version: approved }))
    expect(cancelAgain.code).toBe('PRECONDITION_FAILED')
    expect(cancelAgain.message).toContain(`it was scheduled to publish at ${future.slice(11, 16)} UTC`)
    expect(cancelAgain.message).toContain(`taken off the publication schedule by ${newsroom.tenant.slug} admin`)
    expect((await snapshot(id)).scheduledPublishAt).toBeNull()
    expect(scheduled.scheduledPublishAt?.toISOString()).toBe(future)

    await as('editor').articles.transition({ article_id: id, version: await versionOf(id), to_state: 'archived' })
    const archived = await versionOf(id)
    await as('admin').articles.transition({ article_id: id, version: archived, to_state: 'draft' })
    const restore = await rejection(as('editor').articles.transition({ article_id: id, version: archived, to_state: 'draft' }))
    expect(restore.message).toContain(`it was restored to draft by ${newsroom.tenant.slug} admin`)
  })

  it('a move without the version it was shown is refused as invalid input', async () => {
    const id = await articleInReview('No version sent')
    const error = await rejection(as('editor').articles.transition({ article_id: id, to_state: 'approved' } as never))
    expect(error.code).toBe('UNPROCESSABLE_CONTENT')
    expect((await db.article.findUniqueOrThrow({ where: { id } })).status).toBe('in_review')
  })
})

describe('saving from a loaded version', () => {
  it('saves when nobody changed the article, and refuses a stale version with PRECONDITION_FAILED', async () => {
    const created = await as('writer').articles.create({ headline: 'First headline' })
    const saved = await as('writer').articles.update({ article_id: created.article_id, version: 1, changes: { headline: 'Second headline', tags: ['a', 'b'] } })
    expect(saved).toMatchObject({ headline: 'Second headline', tags: ['a', 'b'], version: 2 })

    const error = await rejection(as('editor').articles.update({ article_id: created.article_id, version: 1, changes: { headline: 'Stale overwrite' } }))
    expect(error.code).toBe('PRECONDITION_FAILED')
    expect(error.message).toContain('it was edited (headline, tags) by')
    expect(error.message).toContain('it is now a draft, at version 2')
    const stored = await db.article.findUniqueOrThrow({ where: { id: created.article_id } })
    expect(stored).toMatchObject({ headline: 'Second headline', version: 2 })
  })

  it("changes only their own articles, and only before they leave review", async () => {
    const editorsOwn = await as('editor').articles.create({ headline: "The editor's piece" })
    const notTheirs = await rejection(as('writer').articles.update({ article_id: editorsOwn.article_id, version: 1, changes: { headline: 'Rewritten by a writer' } }))
    expect(notTheirs.code).toBe('FORBIDDEN')
    expect(notTheirs.message).toContain('only their own articles')
    // The editor page learns the same refusal up front and shows the form read-only.
    expect((await as('writer').articles.get({ article_id: editorsOwn.article_id })).readOnlyReason).toBe(notTheirs.message)
    expect((await as('editor').articles.get({ article_id: editorsOwn.article_id })).readOnlyReason).toBeNull()

    const own = await articleInReview('Mine until approved')
    await as('editor').articles.transition({ article_id: own, version: await versionOf(own), to_state: 'approved' })
    const approved = await db.article.findUniqueOrThrow({ where: { id: own } })
    const tooLate = await rejection(as('writer').articles.update({ article_id: own, version: approved.version, changes: { headline: 'Sneaky edit after approval' } }))
    expect(tooLate.code).toBe('FORBIDDEN')
    expect((await as('writer').articles.get({ article_id: own })).readOnlyReason).toBe(tooLate.message)
    expect((await db.article.findUniqueOrThrow({ where: { id: own } })).headline).toBe('Mine until approved')
    expect((await db.article.findUniqueOrThrow({ where: { id: editorsOwn.article_id } })).headline).toBe("The editor's piece")

    const edited = await as('editor').articles.update({ article_id: own, version: approved.version, changes: { headline: 'Edited by the desk' } })
    expect(edited.headline).toBe('Edited by the desk')
  })

  it('reports invalid fields as the domain\'s field errors', async () => {
    const created = await as('writer').articles.create({ headline: 'Valid' })
    const error = await rejection(
      as('writer').articles.update({ article_id: created.article_id, version: 1, changes: { department_id: other.departments[0]!.id } }),
    )
    expect(error.code).toBe('UNPROCESSABLE_CONTENT')
    expect((error.cause as { fieldErrors?: unknown }).fieldErrors).toEqual([
      { field: 'department_id', message: `No department '${other.departments[0]!.id}' in this newsroom.` },
    ])
  })
})

describe('lists and tenancy', () => {
  it('filters and pages like /v1, newest publications first', async () => {
    const tag = 'paging-check'
    const ids: string[] = []
    for (let i = 0; i < 3; i++) ids.push((await as('editor').articles.create({ headline: `Paged ${i}`, tags: [tag] })).article_id)
    const first = await as('writer').articles.list({ tag, limit: 2, offset: 0 })
    expect(first).toMatchObject({ total: 3, limit: 2, offset: 0, next_offset: 2 })
    expect(first.items.map((item) => item.article_id)).toEqual([ids[2], ids[1]])
    const second = await as('writer').articles.list({ tag, limit: 2, offset: 2 })
    expect(second).toMatchObject({ total: 3, next_offset: null })
    expect(second.items.map((item) => item.article_id)).toEqual([ids[0]])
    expect((await as('writer').articles.list({ tag, status: 'published', limit: 50, offset: 0 })).total).toBe(0)
  })

  it('offers the newsroom\'s own departments and authors only', async () => {
    const options = await as('writer').articles.filterOptions()
    expect(options.departments.map((department) => department.name)).toEqual(['News', 'Sport'])
    expect(options.authors.map((author) => author.id).sort()).toEqual(Object.values(newsroom.users).map((user) => user.id).sort())
  })

  it('does not reveal another newsroom\'s article', async () => {
    const foreign = await as('writer', other).articles.create({ headline: 'Elsewhere' })
    expect((await rejection(as('editor').articles.get({ article_id: foreign.article_id }))).code).toBe('NOT_FOUND')
    expect((await rejection(as('editor').articles.history({ article_id: foreign.article_id }))).code).toBe('NOT_FOUND')
    expect((await rejection(as('admin').articles.transition({ article_id: foreign.article_id, version: await versionOf(foreign.article_id), to_state: 'in-review' }))).code).toBe('NOT_FOUND')
  })

  it('refuses callers without a session', async () => {
    const anonymous = createCaller({ member: null, tenant: null })
    expect((await rejection(anonymous.articles.list({ limit: 50, offset: 0 }))).code).toBe('UNAUTHORIZED')
  })
})
