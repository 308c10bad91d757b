import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { db } from '../../lib/db/client.ts'
import type { Role } from '../../lib/db/generated/enums.ts'
import { claimEditLease, leaseSeconds, type PortalLock } from '../../lib/articles/edit-lease.ts'
import { leaseBeganAfterClaimEnded } from '../../lib/articles/lease-lapse.ts'
import { watchArticle } from '../../lib/articles/watch-article.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { portalCaller } from '../support/portal-caller.ts'

// break74: the writer has the story open in tab 1 (asleep: its claim lapsed) and in window 2,
// which kept the lease live. Colleagues take it over. When tab 1 wakes, it judges what happened
// as use-edit-lease.ts does: leaseBeganAfterClaimEnded on the lock it is answered (watch or
// heartbeat), changedAfterClaimEnded on a change it finds with the lease gone. Neither may call
// a take-over of the writer's live lease "Your hold on this article lapsed". Two cases still do
// (the take-over passed on to a third person; taken over, saved and let go before the tab woke):
// their tests stay on branch break74 (d676f39) until a take-over is recorded where it outlives
// the lease (the stop note of 2026-12-01).

let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let adminToken: string

const portal = (role: Role) => portalCaller(newsroom, role)

beforeAll(async () => {
  server = await startApiServer()
  newsroom = await createTestTenant()
  adminToken = await newsroom.token(['articles:read', 'articles:write'], 'admin')
})
afterAll(() => server.close())

const L = leaseSeconds * 1000

/** Tab 1 claimed two lease-lengths ago and slept; window 2 renewed all along. Returns when tab 1's claim ended. */
async function sleptWhileWindowTwoKeptIt(id: string): Promise<string> {
  const writer = newsroom.actor('writer')
  const start = Date.now() - 2 * L
  const tab1 = await claimEditLease(writer, id, { session: 'tab-1-asleep-000000', now: new Date(start + 1000) })
  await claimEditLease(writer, id, { session: 'window-2-awake-0000', now: new Date(start + 2000) })
  await claimEditLease(writer, id, { session: 'window-2-awake-0000', now: new Date(start + L) })
  await claimEditLease(writer, id, { session: 'window-2-awake-0000' })
  expect(Date.parse(tab1.lock.expires_at)).toBeLessThan(Date.now())
  return tab1.lock.expires_at
}

async function draft(headline: string): Promise<string> {
  return (await portal('writer').articles.create({ headline, lede: 'First lede.' })).article_id
}

describe('a tab that slept while the writer’s other window kept the lease', () => {
  it('is told of a take-over by the editor even when the tab took it back elsewhere first (held)', async () => {
    const id = await draft('Taken back')
    const tab1Ended = await sleptWhileWindowTwoKeptIt(id)
    await claimEditLease(newsroom.actor('editor'), id, { takeOver: true, session: 'editor-tab-00000000' })
    await claimEditLease(newsroom.actor('writer'), id, { takeOver: true, session: 'window-2-awake-0000' })
    await claimEditLease(newsroom.actor('editor'), id, { takeOver: true, session: 'editor-tab-00000000' })
    const watched = await watchArticle(newsroom.actor('writer'), id)
    if (watched.unchanged) throw new Error('expected a state')
    expect(watched.lock).toMatchObject({ holder_id: newsroom.users.editor.id, taken_over_from_id: newsroom.users.writer.id })
    expect(leaseBeganAfterClaimEnded(watched.lock as PortalLock, tab1Ended, newsroom.users.writer.id)).toBe(false)
  })

  it('still calls a claim of a free article after the whole lease lapsed a lapse', async () => {
    const id = await draft('Lapsed then claimed')
    const writer = newsroom.actor('writer')
    const tab1 = await claimEditLease(writer, id, { session: 'tab-1-asleep-000000', now: new Date(Date.now() - 2 * L) })
    await claimEditLease(newsroom.actor('editor'), id, { takeOver: true, session: 'editor-tab-00000000' })
    const watched = await watchArticle(newsroom.actor('writer'), id)
    if (watched.unchanged) throw new Error('expected a state')
    expect(watched.lock).toMatchObject({ holder_id: newsroom.users.editor.id, taken_over_from_id: null })
    expect(leaseBeganAfterClaimEnded(watched.lock as PortalLock, tab1.lock.expires_at, newsroom.users.writer.id)).toBe(true)
  })
})

describe('/v1 is unchanged', () => {
  it('shows no taken_over_from_id in a read, a claim, a list or a 409 article_locked problem', async () => {
    const id = await draft('No leak')
    await sleptWhileWindowTwoKeptIt(id)
    await claimEditLease(newsroom.actor('editor'), id, { takeOver: true, session: 'editor-tab-00000000' })
    const api = apiClient(server.url, adminToken)
    const read = await api.get(`/v1/articles/${id}`)
    expect(Object.keys(read.body.lock).sort()).toEqual(['expires_at', 'holder_id', 'holder_name', 'since'])
    const refused = await api.patch(`/v1/articles/${id}`, { headline: 'Refused' })
    expect(refused.status).toBe(409)
    expect(JSON.stringify(refused.body)).not.toContain('taken_over')
    const claimRefused = await api.post(`/v1/articles/${id}/lock`)
    expect(JSON.stringify(claimRefused.body)).not.toContain('taken_over')
    const claimed = await api.post(`/v1/articles/${id}/lock?take_over=true`)
    expect(JSON.stringify(claimed.body)).not.toContain('taken_over')
    const list = await api.get(`/v1/articles?limit=100`)
    expect(JSON.stringify(list.body)).not.toContain('taken_over')
    // An override write leaves the lease (and how it began) alone.
    const overridden = await api.patch(`/v1/articles/${id}`, { headline: 'Over it', override_lock: true })
    expect(JSON.stringify(overridden.body)).not.toContain('taken_over')
    expect(await db.articleLease.count({ where: { articleId: id } })).toBe(1)
  })
})

describe('two colleagues taking over at once', () => {
  it('records, answers and notes the same former holder for the second take-over', async () => {
    for (let round = 0; round < 6; round++) {
      const id = await draft(`Raced take-over ${round}`)
      await claimEditLease(newsroom.actor('writer'), id, { session: 'window-2-awake-0000' })
      const [byEditor, byAdmin] = await Promise.all([
        claimEditLease(newsroom.actor('editor'), id, { takeOver: true, session: 'editor-tab-00000000' }),
        claimEditLease(newsroom.actor('admin'), id, { takeOver: true, session: 'admin-tab-000000000' }),
      ])
      const lease = await db.articleLease.findUniqueOrThrow({ where: { articleId: id } })
      const last = lease.holderId === newsroom.users.admin.id ? byAdmin : byEditor
      const first = last === byAdmin ? byEditor : byAdmin
      // The first took it from the writer; the second from the first, as the lease records.
      expect(first.took_over_from?.id).toBe(newsroom.users.writer.id)
      expect(last.took_over_from?.id).toBe(lease.takenOverFromId)
      expect(lease.takenOverFromId).toBe(first.lock.holder_id)
    }
  })
})
