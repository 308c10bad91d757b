import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { claimEditLease, leaseSeconds } from '../../lib/articles/edit-lease.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// break79: one article's GET shows its live edit lease (`lock`, read with `l.expires_at > now()`),
// and that answer is kept in the response cache under the newsroom's article generation. A lease
// lapses by the clock, with no write and so no advance; a renewal is acknowledged without an
// advance on purpose (edit-lease.ts). A cached GET then shows, for up to 30 s:
// - a lease that has lapsed (expires_at in the past) as the article's live lock, to a colleague
//   who would take the story over;
// - after the holder's acknowledged renewal, the lease's end from before it.

let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let api: ReturnType<typeof apiClient>

beforeAll(async () => {
  server = await startApiServer()
  newsroom = await createTestTenant({ plan: 'enterprise' })
  api = apiClient(server.url, await newsroom.token(['articles:read', 'articles:write'], 'editor'))
})

afterAll(async () => {
  await server.close()
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('the lock shown by a cached GET /v1/articles/{id} (break79)', () => {
  it('is not a lease that has lapsed', async () => {
    const created = await api.post('/v1/articles', { headline: 'Lapsing lease' })
    expect(created.status, created.text).toBe(201)
    const id = created.body.article_id as string
    // A lease claimed (not renewed) so that it ends 1.5 s from now: the claim advances the generation.
    const actor = { tenant: newsroom.tenant, user: newsroom.users.editor } as Parameters<typeof claimEditLease>[0]
    await claimEditLease(actor, id, { now: new Date(Date.now() - leaseSeconds * 1000 + 1_500) })
    // Asked twice: the answer, with the lock, is kept.
    for (let i = 0; i < 3; i++) expect((await api.get(`/v1/articles/${id}`)).body.lock).not.toBeNull()
    await sleep(2_500)
    const after = await api.get(`/v1/articles/${id}`)
    expect(after.status, after.text).toBe(200)
    // The lease is over: the database no longer shows it, nor should the API.
    expect(after.body.lock).toBeNull()
  })

  it('shows the lease end of an acknowledged renewal', async () => {
    const created = await api.post('/v1/articles', { headline: 'Renewed lease' })
    const id = created.body.article_id as string
    const claimed = await api.post(`/v1/articles/${id}/lock`)
    expect(claimed.status, claimed.text).toBe(200)
    for (let i = 0; i < 3; i++) expect((await api.get(`/v1/articles/${id}`)).body.lock.expires_at).toBe(claimed.body.lock.expires_at)
    await sleep(50)
    const renewed = await api.post(`/v1/articles/${id}/lock`)
    expect(renewed.status, renewed.text).toBe(200)
    expect(renewed.body.lock.expires_at).not.toBe(claimed.body.lock.expires_at)
    const after = await api.get(`/v1/articles/${id}`)
    expect(after.body.lock.expires_at).toBe(renewed.body.lock.expires_at)
  })
})
