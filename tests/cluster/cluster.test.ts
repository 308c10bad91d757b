import { readFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createContentKey } from '../../lib/content/content-keys.ts'
import { db } from '../../lib/db/client.ts'
import { clusterLayout } from '../../scripts/cluster-layout.ts'
import { restartApp } from '../../scripts/cluster.ts'
import { apiClient } from '../support/api-client.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// The cluster `npm run cluster` starts (tests/cluster/cluster-setup.ts): three app instances
// behind HAProxy, Varnish in front of /content/v1, PostgreSQL primary + replica, Redis.

const layout = clusterLayout()
const haproxy = `http://127.0.0.1:${layout.ports.haproxy}`
const varnish = `http://127.0.0.1:${layout.ports.varnish}`
const instance = (index: number) => `http://127.0.0.1:${layout.ports.apps[index]}`

let newsroom: TestTenant
let token: string
let contentKey: string

beforeAll(async () => {
  newsroom = await createTestTenant({ plan: 'enterprise' })
  token = await newsroom.token(['articles:read', 'articles:write'], 'editor')
  contentKey = (await createContentKey(newsroom.actor('admin'), 'Site')).key
})

afterAll(() => db.$disconnect())

async function publishedArticle(client: ReturnType<typeof apiClient>, headline: string) {
  const article = (await client.post('/v1/articles', { headline })).body
  for (const to_state of ['in-review', 'approved', 'published']) expect((await client.post(`/v1/articles/${article.article_id}/transitions`, { to_state })).status).toBe(200)
  return article as { article_id: string }
}

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  let value = await read()
  for (let i = 0; i < 100 && !done(value); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    value = await read()
  }
  return value
}

describe('Varnish in front of /content/v1', () => {
  it('serves a published article from its cache until the purge, and never the unpublished article after it', async () => {
    const editor = apiClient(haproxy, token)
    const article = await publishedArticle(editor, 'Harbour fire')
    const page = `/content/v1/articles/${article.article_id}?key=${contentKey}`
    const site = apiClient(varnish)
    // The publication's own purge is sent after its answer: once it has gone (marked in the
    // outbox), nothing else purges this page until the next change.
    const unsentPurges = () => db.event.count({ where: { tenantId: newsroom.tenant.id, kind: 'content.purge_requested', sentToQueueAt: null } })
    expect(await eventually(unsentPurges, (count) => count === 0)).toBe(0)
    expect((await site.get(page)).status).toBe(200)
    const hit = await site.get(page)
    expect(hit.headers.get('x-cache')).toBe('HIT')
    expect(hit.body.headline).toBe('Harbour fire')
    // Its cache tags (with the newsroom's id) are for purges, not for the public.
    expect(hit.headers.get('surrogate-key')).toBeNull()
    expect(hit.headers.get('cache-tag')).toBeNull()
    // A page on any origin reads the cached copy too, and its preflight passes through Varnish.
    expect(hit.headers.get('access-control-allow-origin')).toBe('*')
    const preflight = await fetch(varnish + page, { method: 'OPTIONS', headers: { Origin: 'https://www.dailyplanet.example', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'x-content-key' } })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-headers')).toContain('X-Content-Key')

    // A change behind the service's back is not seen: Varnish answers from its cache.
    await db.$executeRaw`UPDATE articles SET headline = 'Changed in SQL' WHERE id = ${article.article_id}`
    expect((await site.get(page)).body.headline).toBe('Harbour fire')

    expect((await editor.post(`/v1/articles/${article.article_id}/transitions`, { to_state: 'draft' })).status).toBe(200)
    const gone = await eventually(() => site.get(page), (answer) => answer.status === 404)
    expect(gone.status).toBe(404)
    for (let i = 0; i < 3; i++) expect((await site.get(page)).status).toBe(404)
    const list = await site.get(`/content/v1/articles?key=${contentKey}`)
    expect(list.body.items.map((item: { article_id: string }) => item.article_id)).not.toContain(article.article_id)
  })
})

describe('three instances behind HAProxy', () => {
  it('a write through one instance is read by the others at once (the response cache is never stale)', async () => {
    const writer = apiClient(instance(0), token)
    const created = (await writer.post('/v1/articles', { headline: 'First take' })).body
    const path = `/v1/articles/${created.article_id}`
    for (const index of [1, 2]) for (let i = 0; i < 2; i++) expect((await apiClient(instance(index), token).get(path)).body.headline).toBe('First take')
    expect((await writer.patch(path, { headline: 'Second take' })).status).toBe(200)
    for (const index of [1, 2]) expect((await apiClient(instance(index), token).get(path)).body.headline).toBe('Second take')
  })

  it('loses no acknowledged write when an instance is killed mid-load, and HAProxy stops sending to it', async () => {
    const client = apiClient(haproxy, token)
    const acknowledged: string[] = []
    const statuses: number[] = []
    const pidFile = path.join(layout.dir, 'app-3.pid')
    const writes = (async () => {
      for (let i = 0; i < 60; i++) {
        // The request in flight on the killed instance is not acknowledged: HAProxy answers 502,
        // or, when the instance had begun its answer, can only cut the client's connection (0).
        const answer = await client.post('/v1/articles', { headline: `Under load ${i}` }).catch(() => ({ status: 0, body: undefined }))
        statuses.push(answer.status)
        if (answer.status === 201) acknowledged.push(answer.body.article_id)
      }
    })()
    try {
      await new Promise((resolve) => setTimeout(resolve, 300))
      process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL')
      await writes
      const stored = await db.article.count({ where: { id: { in: acknowledged } } })
      expect(acknowledged.length).toBeGreaterThan(0)
      expect(stored).toBe(acknowledged.length)
      // HAProxy took the instance out: every request after the health checks noticed succeeds.
      const after = await eventually(async () => (await client.get('/v1/articles?limit=1')).status, (status) => status === 200)
      expect(after).toBe(200)
      for (let i = 0; i < 9; i++) expect((await client.get('/v1/articles?limit=1')).status).toBe(200)
    } finally {
      // Back to three, for whatever runs next, whether or not this test passed.
      await writes
      await restartApp(2)
    }
  })
})
