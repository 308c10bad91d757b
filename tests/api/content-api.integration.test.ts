import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { createContentKey, revokeContentKey } from '../../lib/content/content-keys.ts'
import { publicArticleListSchema, publicArticleSchema } from '../../lib/content/public-article-schema.ts'
import { db } from '../../lib/db/client.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { stubEnv } from '../support/stub-env.ts'

// The public content API (/content/v1): published articles only, for a content key, answered
// cacheable with surrogate keys; and the purges an article change sends to CONTENT_PURGE_URL.

type Purge = { method: string; keys: string[] }
let newsroom: TestTenant
let server: { url: string; close: () => Promise<void> }
let purgeHook: Server
const purges: Purge[] = []
let purgeHookAnswers = 200
let contentKey: string

beforeAll(async () => {
  purgeHook = createServer((req, res) => {
    purges.push({ method: req.method ?? '', keys: String(req.headers['surrogate-key'] ?? '').split(' ') })
    res.writeHead(purgeHookAnswers).end()
  })
  await new Promise<void>((resolve) => purgeHook.listen(0, '127.0.0.1', resolve))
  stubEnv({ CONTENT_PURGE_URL: `http://127.0.0.1:${(purgeHook.address() as AddressInfo).port}/` })
  newsroom = await createTestTenant()
  contentKey = (await createContentKey(newsroom.actor('admin'), 'Public site')).key
  server = await startApiServer()
})

afterAll(async () => {
  await server.close()
  await new Promise((resolve) => purgeHook.close(resolve))
  vi.unstubAllEnvs()
})

/** An article the editor takes from draft to approved (through review). */
async function approved(editor: ReturnType<typeof apiClient>, headline: string) {
  const article = (await editor.post('/v1/articles', { headline })).body
  for (const to_state of ['in-review', 'approved']) expect((await editor.post(`/v1/articles/${article.article_id}/transitions`, { to_state })).body).toMatchObject({ status: to_state })
  return article
}

async function waitForPurge(match: (purge: Purge) => boolean): Promise<Purge> {
  for (let i = 0; i < 200; i++) {
    const found = purges.find(match)
    if (found) return found
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error(`no such purge among ${JSON.stringify(purges)}`)
}

describe('public content API', () => {
  it('serves published articles only, cacheable by a shared cache and tagged with surrogate keys', async () => {
    const editor = apiClient(server.url, await newsroom.token(['articles:read', 'articles:write'], 'editor'))
    const live = await approved(editor, 'Bridge reopens')
    const published = await editor.post(`/v1/articles/${live.article_id}/transitions`, { to_state: 'published' })
    expect(published.body).toMatchObject({ status: 'published' })
    const draft = (await editor.post('/v1/articles', { headline: 'Not yet' })).body
    const site = apiClient(server.url)

    const list = await site.get(`/content/v1/articles?key=${contentKey}`)
    expect(list.status).toBe(200)
    expect(list.body.items.map((item: { article_id: string }) => item.article_id)).toEqual([live.article_id])
    expect(list.body.items[0]).not.toHaveProperty('author_id')
    expect(list.headers.get('cache-control')).toMatch(/^public, .*s-maxage=\d+, stale-while-revalidate=\d+/)
    expect(list.headers.get('surrogate-key')!.split(' ')).toEqual([`newsroom-${newsroom.tenant.id}`, `list-${newsroom.tenant.id}`])
    expect(list.headers.get('cache-tag')).toBe(`newsroom-${newsroom.tenant.id},list-${newsroom.tenant.id}`)

    const slug = (await site.get(`/content/v1/articles/${live.article_id}?key=${contentKey}`)).body.slug
    for (const address of [live.article_id, slug]) {
      const one = await site.get(`/content/v1/articles/${address}`, { 'X-Content-Key': contentKey })
      expect(one.status).toBe(200)
      expect(one.body).toMatchObject({ article_id: live.article_id, headline: 'Bridge reopens' })
      expect(one.headers.get('surrogate-key')).toContain(`article-${live.article_id}`)
      expect(one.headers.get('vary')).toBe('X-Content-Key')
    }
    const hidden = await site.get(`/content/v1/articles/${draft.article_id}?key=${contentKey}`)
    expect(hidden.status).toBe(404)
    // A 404 is kept briefly under the list key, so the publication that makes it exist purges it.
    expect(hidden.headers.get('surrogate-key')).toContain(`list-${newsroom.tenant.id}`)
  })

  it('answers as its own OpenAPI document says: public fields only, and the document served without a key', async () => {
    const editor = apiClient(server.url, await newsroom.token(['articles:read', 'articles:write'], 'editor'))
    const live = await approved(editor, 'Ferry timetable changes')
    expect((await editor.post(`/v1/articles/${live.article_id}/transitions`, { to_state: 'published' })).body).toMatchObject({ status: 'published' })
    const site = apiClient(server.url)

    const described = await site.get('/content/v1/openapi.json')
    expect(described.status).toBe(200)
    expect(described.body.info.title).toBe('Newsroom Content API (public)')
    expect(Object.keys(described.body.paths)).toEqual(expect.arrayContaining(['/content/v1/articles', '/content/v1/articles/{article}']))
    expect((await site.get('/content/v1/openapi.json', { 'If-None-Match': described.headers.get('etag')! })).status).toBe(304)

    // Strict: a field the schema does not name (a workflow state, an author) fails the parse.
    const list = await site.get(`/content/v1/articles?key=${contentKey}&q=ferry`)
    expect(publicArticleListSchema.extend({ items: z.array(publicArticleSchema.strict()) }).parse(list.body).items.map((item) => item.article_id)).toEqual([live.article_id])
    const one = await site.get(`/content/v1/articles/${live.article_id}`, { 'X-Content-Key': contentKey })
    expect(publicArticleSchema.strict().parse(one.body)).toMatchObject({ article_id: live.article_id, headline: 'Ferry timetable changes' })
  })

  it('refuses a missing, unknown or revoked key, uncacheable, and a bad query with a 422', async () => {
    const site = apiClient(server.url)
    const missing = await site.get('/content/v1/articles')
    expect(missing.status).toBe(401)
    expect(missing.headers.get('cache-control')).toBe('no-store')
    expect((await site.get(`/content/v1/articles?key=nrc_${'x'.repeat(40)}`)).status).toBe(401)
    expect((await site.get(`/content/v1/articles?key=${contentKey}&status=draft`)).status).toBe(422)
    expect((await site.get(`/content/v1/articles?key=${contentKey}&limit=0`)).status).toBe(422)

    const doomed = await createContentKey(newsroom.actor('admin'), 'Old site')
    expect((await site.get(`/content/v1/articles?key=${doomed.key}`)).status).toBe(200)
    await revokeContentKey(newsroom.actor('admin'), doomed.summary.id)
    expect((await site.get(`/content/v1/articles?key=${doomed.key}`)).status).toBe(401)
    // Pages a shared cache kept for the newsroom are purged with the revocation.
    await waitForPurge((purge) => purge.keys.includes(`newsroom-${newsroom.tenant.id}`))
  })

  it("answers a page on any origin: a preflight for the key and If-None-Match headers, and every answer, failures too, readable by the page's script", async () => {
    const origin = { Origin: 'https://www.dailyplanet.example' }
    for (const path of ['/content/v1/articles', '/content/v1/articles/some-story', '/content/v1/openapi.json']) {
      const preflight = await fetch(server.url + path, {
        method: 'OPTIONS',
        headers: { ...origin, 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'if-none-match,x-content-key' },
      })
      expect(preflight.status, path).toBe(204)
      expect(preflight.headers.get('access-control-allow-origin')).toBe('*')
      expect(preflight.headers.get('access-control-allow-methods')!.split(', ')).toContain('GET')
      expect(preflight.headers.get('access-control-allow-headers')!.toLowerCase().split(', ')).toEqual(expect.arrayContaining(['x-content-key', 'if-none-match']))
      expect(Number(preflight.headers.get('access-control-max-age'))).toBeGreaterThan(0)
      expect(preflight.headers.get('allow')).toBe('GET, HEAD, OPTIONS')
    }

    const list = await fetch(`${server.url}/content/v1/articles`, { headers: { ...origin, 'X-Content-Key': contentKey } })
    expect(list.status).toBe(200)
    expect(list.headers.get('access-control-allow-origin')).toBe('*')
    expect(list.headers.get('access-control-expose-headers')!.split(', ')).toEqual(expect.arrayContaining(['ETag', 'X-Request-Id', 'Retry-After']))
    // One answer for every origin: a shared cache keeps one copy, and no origin is echoed back.
    expect(list.headers.get('vary')).toBe('X-Content-Key')
    const unchanged = await fetch(`${server.url}/content/v1/articles`, { headers: { ...origin, 'X-Content-Key': contentKey, 'If-None-Match': list.headers.get('etag')! } })
    expect(unchanged.status).toBe(304)
    expect(unchanged.headers.get('access-control-allow-origin')).toBe('*')

    const failures = [
      await fetch(`${server.url}/content/v1/articles`, { headers: origin }),
      await fetch(`${server.url}/content/v1/articles?key=${contentKey}&limit=0`, { headers: origin }),
      await fetch(`${server.url}/content/v1/articles/no-such-story?key=${contentKey}`, { headers: origin }),
      await fetch(`${server.url}/content/v1/articles?key=${contentKey}`, { method: 'POST', headers: origin }),
      await fetch(`${server.url}/content/v1/articles?key=${contentKey}`, { method: 'HEAD', headers: origin }),
    ]
    expect(failures.map((answer) => answer.status)).toEqual([401, 422, 404, 405, 200])
    for (const answer of failures) expect(answer.headers.get('access-control-allow-origin'), String(answer.status)).toBe('*')
  })
})

describe('content purges', () => {
  it('purge the article and list keys when an article goes live, changes while live or leaves; a draft edit purges nothing', async () => {
    const editor = apiClient(server.url, await newsroom.token(['articles:read', 'articles:write'], 'editor'))
    const article = await approved(editor, 'Council votes')
    const path = `/v1/articles/${article.article_id}`
    const keys = [`article-${article.article_id}`, `list-${newsroom.tenant.id}`]
    const purged = async (change: () => Promise<unknown>) => {
      purges.length = 0
      await change()
      expect((await waitForPurge((purge) => purge.keys.includes(keys[0]!))).keys.sort()).toEqual([...keys].sort())
    }
    const draftEdit = await editor.post('/v1/articles', { headline: 'Draft only' })
    await editor.patch(`/v1/articles/${draftEdit.body.article_id}`, { lede: 'still a draft' })

    await purged(() => editor.post(`${path}/transitions`, { to_state: 'published' }))
    await purged(() => editor.patch(path, { lede: 'Live edit' }))
    await purged(() => editor.patch(path, { slug: 'council-votes-again' }))
    await purged(() => editor.post(`${path}/transitions`, { to_state: 'archived' }))
    expect(purges.every((purge) => purge.method === 'PURGE')).toBe(true)
    const draftPurges = await db.event.count({ where: { kind: 'content.purge_requested', data: { path: ['keys'], array_contains: [`article-${draftEdit.body.article_id}`] } } })
    expect(draftPurges).toBe(0)
  })

  it('keeps a purge in the outbox while the cache is down and sends it once it answers', async () => {
    const editor = apiClient(server.url, await newsroom.token(['articles:read', 'articles:write'], 'editor'))
    const article = await approved(editor, 'Storm warning')
    purgeHookAnswers = 503
    purges.length = 0
    await editor.post(`/v1/articles/${article.article_id}/transitions`, { to_state: 'published' })
    await waitForPurge((purge) => purge.keys.includes(`article-${article.article_id}`))
    const waiting = () => db.event.count({ where: { kind: 'content.purge_requested', sentToQueueAt: null, tenantId: newsroom.tenant.id } })
    expect(await waiting()).toBe(1)

    purgeHookAnswers = 200
    purges.length = 0
    await waitForPurge((purge) => purge.keys.includes(`article-${article.article_id}`))
    for (let i = 0; i < 100 && (await waiting()) > 0; i++) await new Promise((resolve) => setTimeout(resolve, 25))
    expect(await waiting()).toBe(0)
  })
})
