import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { db } from '../../lib/db/client.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// Issue 29: nobody could show a draft on the newsroom's own site before it went live. A preview
// token now opens exactly one article of one newsroom, with no API key, until it expires or is
// revoked; anything else is a 404, never the published version.

let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let editor: ReturnType<typeof apiClient>
let site: ReturnType<typeof apiClient>

beforeAll(async () => {
  server = await startApiServer()
  newsroom = await createTestTenant()
  editor = apiClient(server.url, await newsroom.token(['articles:read', 'articles:write'], 'editor'))
  site = apiClient(server.url)
})
afterAll(() => server.close())

async function draft(headline: string, body = '<p>Draft text</p>'): Promise<string> {
  return (await editor.post('/v1/articles', { headline, body })).body.article_id
}

describe('a preview link', () => {
  it('opens its draft with no API key, uncached and unindexed; the token is stored only as a hash; minting is audited', async () => {
    const id = await draft('Ferry strike', '<p>Talks continue.</p><script>alert(1)</script>')
    const minted = await editor.post(`/v1/articles/${id}/preview-links`, { expires_in: 3600 })
    expect(minted.status).toBe(201)
    expect(minted.body.token).toMatch(/^nrp_[A-Za-z0-9_-]{43}$/)
    expect(minted.body.url).toBe(`${newsroom.tenant.publicSiteUrl}/preview?token=${minted.body.token}`)
    expect(new Date(minted.body.expires_at).getTime() - new Date(minted.body.created_at).getTime()).toBe(3_600_000)

    const opened = await site.get(`/v1/preview/${minted.body.token}`)
    expect(opened.status).toBe(200)
    expect(opened.headers.get('cache-control')).toBe('no-store')
    expect(opened.headers.get('x-robots-tag')).toBe('noindex')
    expect(opened.body).toMatchObject({ article_id: id, headline: 'Ferry strike', status: 'draft', body: '<p>Talks continue.</p>' })

    const stored = await db.previewLink.findUniqueOrThrow({ where: { id: minted.body.preview_link_id } })
    expect(JSON.stringify(stored)).not.toContain(minted.body.token)
    expect(await db.auditEntry.count({ where: { tenantId: newsroom.tenant.id, action: 'preview_link.created', targetId: id } })).toBe(1)

    // It shows the draft as it is when opened.
    await editor.patch(`/v1/articles/${id}`, { headline: 'Ferry strike ends' })
    expect((await site.get(`/v1/preview/${minted.body.token}`)).body.headline).toBe('Ferry strike ends')
    const listed = await editor.get(`/v1/articles/${id}/preview-links`)
    expect(listed.body.items.map((link: { preview_link_id: string }) => link.preview_link_id)).toEqual([minted.body.preview_link_id])
    expect(JSON.stringify(listed.body)).not.toContain(minted.body.token)
  })

  it('shows the revision it names', async () => {
    const id = await draft('First headline')
    await editor.patch(`/v1/articles/${id}`, { headline: 'Second headline' })
    const first = await db.articleRevision.findFirstOrThrow({ where: { articleId: id, version: 1 } })
    const minted = await editor.post(`/v1/articles/${id}/preview-links`, { revision_id: first.id })
    expect((await site.get(`/v1/preview/${minted.body.token}`)).body.headline).toBe('First headline')
    const other = await draft('Other')
    expect((await editor.post(`/v1/articles/${other}/preview-links`, { revision_id: first.id })).status).toBe(422)
  })

  it('is a 404 once revoked (audited), once expired, when forged, and never the published version', async () => {
    const id = await draft('Published meanwhile')
    const revoked = await editor.post(`/v1/articles/${id}/preview-links`, {})
    const expiring = await editor.post(`/v1/articles/${id}/preview-links`, {})
    await editor.post(`/v1/articles/${id}/transitions`, { to_state: 'in-review' })
    await editor.post(`/v1/articles/${id}/transitions`, { to_state: 'approved' })
    await editor.post(`/v1/articles/${id}/transitions`, { to_state: 'published' })

    expect((await editor.delete(`/v1/articles/${id}/preview-links/${revoked.body.preview_link_id}`)).status).toBe(204)
    const afterRevoke = await site.get(`/v1/preview/${revoked.body.token}`)
    expect(afterRevoke.status).toBe(404)
    expect(afterRevoke.headers.get('cache-control')).toBe('no-store')
    expect(afterRevoke.text).not.toContain('Published meanwhile')
    expect(await db.auditEntry.count({ where: { action: 'preview_link.revoked', targetId: id } })).toBe(1)

    await db.previewLink.update({ where: { id: expiring.body.preview_link_id }, data: { expiresAt: new Date(Date.now() - 1000) } })
    expect((await site.get(`/v1/preview/${expiring.body.token}`)).status).toBe(404)
    expect((await editor.get(`/v1/articles/${id}/preview-links`)).body.items).toEqual([])

    const forged = `${expiring.body.token.slice(0, -4)}AAAA`
    for (const token of [forged, 'nrp_', 'x'.repeat(40), '%E0%A4%A', `nrs_${'a'.repeat(43)}`]) expect((await site.get(`/v1/preview/${token}`)).status).toBe(404)
  })

  it('belongs to one article of one newsroom: another article’s or newsroom’s id cannot list or revoke it', async () => {
    const id = await draft('Ours')
    const minted = await editor.post(`/v1/articles/${id}/preview-links`, {})
    const otherArticle = await draft('Another of ours')
    expect((await editor.delete(`/v1/articles/${otherArticle}/preview-links/${minted.body.preview_link_id}`)).status).toBe(404)

    const other = await createTestTenant()
    const foreign = apiClient(server.url, await other.token(['articles:read', 'articles:write'], 'editor'))
    expect((await foreign.get(`/v1/articles/${id}/preview-links`)).status).toBe(404)
    expect((await foreign.delete(`/v1/articles/${id}/preview-links/${minted.body.preview_link_id}`)).status).toBe(404)
    expect((await foreign.post(`/v1/articles/${id}/preview-links`, {})).status).toBe(404)
    // Still working, and still only ours.
    expect((await site.get(`/v1/preview/${minted.body.token}`)).body).toMatchObject({ article_id: id, headline: 'Ours' })
  })

  it('needs articles:write to mint, list and revoke', async () => {
    const id = await draft('Scoped')
    const reader = apiClient(server.url, await newsroom.token(['articles:read'], 'editor'))
    expect((await reader.post(`/v1/articles/${id}/preview-links`, {})).status).toBe(403)
    expect((await reader.get(`/v1/articles/${id}/preview-links`)).status).toBe(403)
  })
})
