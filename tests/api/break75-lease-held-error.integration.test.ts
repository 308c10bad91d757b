import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { askForEditLease, claimEditLease, leaseSeconds } from '../../lib/articles/edit-lease.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { portalCaller } from '../support/portal-caller.ts'

// break75: LeaseHeldError (9119b95) carries the portal's lock; /v1's 409 article_locked keeps four fields.

let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let adminToken: string
const L = leaseSeconds * 1000

beforeAll(async () => {
  server = await startApiServer()
  newsroom = await createTestTenant()
  adminToken = await newsroom.token(['articles:read', 'articles:write'], 'admin')
})
afterAll(() => server.close())

const problemKeys = (body: Record<string, unknown>) => Object.keys(body).filter((k) => !['type', 'title', 'status', 'detail', 'code', 'instance', 'request_id'].includes(k)).sort()

describe('a lease taken over from a writer whose other window kept it', () => {
  it('gives /v1 only the four lock fields in every 409, and the heartbeat the true former holder', async () => {
    const id = (await portalCaller(newsroom, 'writer').articles.create({ headline: 'Held', lede: 'L.' })).article_id
    const writer = newsroom.actor('writer')
    const start = Date.now() - 2 * L
    await claimEditLease(writer, id, { session: 'tab-1-asleep-000000', now: new Date(start + 1000) })
    await claimEditLease(writer, id, { session: 'window-2-awake-0000', now: new Date(start + L) })
    await claimEditLease(writer, id, { session: 'window-2-awake-0000' })
    await claimEditLease(newsroom.actor('editor'), id, { takeOver: true, session: 'editor-tab-00000000' })

    const heartbeat = await askForEditLease(writer, id, { session: 'tab-1-asleep-000000' })
    expect(heartbeat).toMatchObject({ mine: false, took_over_from: null, lock: { holder_id: newsroom.users.editor.id, taken_over_from_id: newsroom.users.writer.id } })
    expect(Object.keys(heartbeat.lock).sort()).toEqual(['expires_at', 'holder_id', 'holder_name', 'since', 'taken_over_from_id'])

    const viaTrpc = await portalCaller(newsroom, 'writer').articles.lease({ article_id: id, session: 'tab-1-asleep-000000' })
    expect(viaTrpc).toEqual(heartbeat)
    const api = apiClient(server.url, adminToken)
    const answers = [
      await api.patch(`/v1/articles/${id}`, { headline: 'Refused' }),
      await api.post(`/v1/articles/${id}/lock`),
      await api.post(`/v1/articles/${id}/transitions`, { to_state: 'in-review' }),
    ]
    for (const answer of answers) {
      expect(answer.status).toBe(409)
      expect(answer.body.code).toBe('article_locked')
      expect(problemKeys(answer.body)).toEqual(['expires_at', 'holder_id', 'holder_name', 'since'])
      expect(answer.body).toMatchObject({ holder_id: newsroom.users.editor.id, holder_name: heartbeat.lock.holder_name, since: heartbeat.lock.since })
    }
    // An override write leaves the lease (and how it began) with the editor.
    const moved = await api.post(`/v1/articles/${id}/transitions`, { to_state: 'in-review', override_lock: true })
    expect(moved.status).toBe(200)
    expect(JSON.stringify(moved.body)).not.toContain('taken_over')
    const released = await api.delete(`/v1/articles/${id}/lock`)
    expect(JSON.stringify(released.body ?? null)).not.toContain('taken_over')
    const took = await api.post(`/v1/articles/${id}/lock?take_over=true`)
    expect(took.status).toBe(200)
    expect(JSON.stringify(took.body)).not.toContain('taken_over')
    // The writer's tab now hears the admin took it from the editor, not from the writer.
    const again = await askForEditLease(writer, id, { session: 'tab-1-asleep-000000' })
    expect(again).toMatchObject({ mine: false, lock: { holder_id: newsroom.users.admin.id, taken_over_from_id: newsroom.users.editor.id } })
    // Once the admin lets go and the editor claims a free article, no take-over is reported.
    await api.delete(`/v1/articles/${id}/lock`)
    await claimEditLease(newsroom.actor('editor'), id, { session: 'editor-tab-00000000' })
    const free = await askForEditLease(writer, id, { session: 'tab-1-asleep-000000' })
    expect(free).toMatchObject({ mine: false, lock: { holder_id: newsroom.users.editor.id, taken_over_from_id: null } })
  })
})
