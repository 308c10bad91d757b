import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { db } from '../../lib/db/client.ts'
import type { ArticleStatus } from '../../lib/db/generated/enums.ts'
import { articlesChanged } from '../../lib/articles/article-totals.ts'
import { createId } from '../../lib/ids.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// The total of a list by tag, alone or with a status, is summed from article_tag_counts, which
// triggers keep in the writing transaction (lib/articles/article-counts.ts). Each test changes
// articles the way some write path does, then compares the kept counts and every such total with
// what count(*) over the articles says.

const statuses: ArticleStatus[] = ['draft', 'in_review', 'approved', 'published', 'archived']
const apiStatus = (status: ArticleStatus) => status.replace('_', '-')
// Spellings of one tag, and an article carrying two spellings of it: counted once.
const tagSets = [['Local', 'politics'], ['local'], ['LOCAL', 'local', 'Weather'], ['weather'], [], ['Politics', 'sport']]

let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let other: TestTenant
let client: ReturnType<typeof apiClient>

function articleAt(i: number, tenant: TestTenant = newsroom) {
  const status = statuses[i % statuses.length]!
  return {
    id: createId('art'),
    tenantId: tenant.tenant.id,
    headline: `Tagged ${i}`,
    status,
    tags: tagSets[i % tagSets.length]!,
    authorId: tenant.users.writer.id,
    publishedAt: status === 'published' || status === 'archived' ? new Date(Date.UTC(2026, 0, 1) + i * 3_600_000) : null,
  }
}

beforeAll(async () => {
  server = await startApiServer()
  newsroom = await createTestTenant()
  other = await createTestTenant()
  client = apiClient(server.url, await newsroom.token(['articles:read', 'articles:write']))
  await db.article.createMany({ data: Array.from({ length: 300 }, (_, i) => articleAt(i)) })
  // Another newsroom's articles under the same tags must never be counted.
  await db.article.createMany({ data: Array.from({ length: 100 }, (_, i) => articleAt(i, other)) })
})
afterAll(() => server.close())

/** The kept counts, per folded tag and status, equal what the articles table holds now. */
async function expectTagCountsKeptExactly(tenantId: string) {
  const kept = await db.$queryRaw<{ tag: string; status: string; n: bigint }[]>`
    SELECT tag, status::text, sum(n)::bigint AS n FROM article_tag_counts WHERE tenant_id = ${tenantId} GROUP BY 1, 2 HAVING sum(n) <> 0 ORDER BY 1, 2`
  const actual = await db.$queryRaw<typeof kept>`
    SELECT t.tag, a.status::text, count(*)::bigint AS n
    FROM articles a CROSS JOIN LATERAL (SELECT DISTINCT lower(tag) AS tag FROM unnest(a.tags) AS tag) t
    WHERE a.tenant_id = ${tenantId} GROUP BY 1, 2 ORDER BY 1, 2`
  expect(kept).toEqual(actual)
}

/** Every tag list's total, with and without a status, as the API answers it and as count(*) has it. */
async function expectExactTagTotals() {
  // Written around the write paths here, so the cached responses are told as commitArticleChange would.
  await articlesChanged([newsroom.tenant.id])
  for (const tag of ['local', 'LOCAL', 'Politics', 'weather', 'sport', 'nowhere']) {
    for (const status of [undefined, 'published', 'draft', 'archived'] as const) {
      const query = new URLSearchParams({ limit: '1', tag })
      if (status) query.set('status', apiStatus(status))
      const answer = await client.get(`/v1/articles?${query}`)
      expect(answer.status, answer.text).toBe(200)
      const [row] = await db.$queryRaw<{ n: number }[]>`
        SELECT count(*)::int AS n FROM articles
        WHERE tenant_id = ${newsroom.tenant.id} AND lower(${tag}) = ANY (SELECT lower(t) FROM unnest(tags) AS t) AND (${status ?? null}::text IS NULL OR status::text = ${status ?? null})`
      expect(answer.body.total, query.toString()).toBe(row!.n)
    }
  }
}

describe('exact totals of lists by tag from kept counts', () => {
  it('match count(*) after a bulk insert, counting two spellings on one article once', async () => {
    await expectTagCountsKeptExactly(newsroom.tenant.id)
    await expectTagCountsKeptExactly(other.tenant.id)
    await expectExactTagTotals()
    const kept = await db.$queryRaw<{ n: number }[]>`SELECT sum(n)::int AS n FROM article_tag_counts WHERE tenant_id = ${newsroom.tenant.id} AND tag = 'local'`
    // Three of every six articles carry "local" in some spelling, one of them twice.
    expect(kept).toEqual([{ n: 150 }])
  })

  it('follow creates, tag edits and workflow moves through the API, and a bulk import', async () => {
    for (let i = 0; i < 4; i++) {
      const created = await client.post('/v1/articles', { headline: `Through the API ${i}`, tags: i % 2 ? ['Local', 'Harbour'] : ['harbour'] })
      expect(created.status, created.text).toBe(201)
      for (const to_state of ['in-review', 'approved', 'published'].slice(0, i)) {
        const moved = await client.post(`/v1/articles/${created.body.article_id}/transitions`, { to_state })
        expect(moved.status, moved.text).toBe(200)
      }
      const edited = await client.patch(`/v1/articles/${created.body.article_id}`, { tags: i % 2 ? ['sport'] : ['LOCAL', 'weather'] })
      expect(edited.status, edited.text).toBe(200)
    }
    const items = Array.from({ length: 20 }, (_, i) => ({ external_id: `wire-${i}`, headline: `Wire ${i}`, tags: i % 2 ? ['Local'] : ['politics', 'sport'] }))
    expect((await client.post('/v1/articles/bulk', { articles: items })).body).toMatchObject({ created: 20 })
    // Sent again with other tags: the known external_ids are updated, moving them between tags.
    expect((await client.post('/v1/articles/bulk', { articles: items.map((item, i) => ({ ...item, tags: i % 3 ? ['weather'] : ['LOCAL'] })) })).body).toMatchObject({ updated: 20 })
    await expectTagCountsKeptExactly(newsroom.tenant.id)
    await expectExactTagTotals()
  })

  it('follow statement-wide updates, edits that change no tag, and deletes', async () => {
    const ids = (await db.article.findMany({ where: { tenantId: newsroom.tenant.id }, select: { id: true }, orderBy: { id: 'asc' } })).map((row) => row.id)
    await db.article.updateMany({ where: { id: { in: ids.slice(0, 40) } }, data: { tags: ['Weather', 'sport'] } })
    await db.article.updateMany({ where: { id: { in: ids.slice(40, 80) } }, data: { status: 'published', publishedAt: new Date() } })
    await db.article.updateMany({ where: { id: { in: ids.slice(80, 100) } }, data: { tags: [] } })
    await db.article.updateMany({ where: { id: { in: ids.slice(100, 140) } }, data: { headline: 'Renamed' } })
    await db.article.deleteMany({ where: { id: { in: ids.slice(140, 170) } } })
    await expectTagCountsKeptExactly(newsroom.tenant.id)
    await expectExactTagTotals()
  })

  it('stay exact under concurrent writes to the same tags', async () => {
    const ids = (await db.article.findMany({ where: { tenantId: newsroom.tenant.id }, select: { id: true }, orderBy: { id: 'desc' }, take: 45 })).map((row) => row.id)
    await Promise.all([
      ...Array.from({ length: 20 }, (_, i) => db.article.createMany({ data: [articleAt(1_000 + i * 2), articleAt(1_001 + i * 2)].map((row) => ({ ...row, tags: ['local'] })) })),
      ...ids.slice(0, 30).map((id, i) => db.article.update({ where: { id }, data: i % 2 ? { tags: ['Local', 'sport'] } : { status: 'published', publishedAt: new Date() } })),
      ...ids.slice(30, 45).map((id) => db.article.delete({ where: { id } })),
    ])
    await expectTagCountsKeptExactly(newsroom.tenant.id)
    await expectExactTagTotals()
  })

  it('stay exact, and every write succeeds, while bulk imports move known articles between tags beside single creates', async () => {
    // A bulk import's upsert runs its update triggers, then its insert triggers: two runs of
    // count-row locks that a concurrent create can meet in the other order. PostgreSQL then rolls
    // one back, and that write is run again (commit-article-change.ts), not answered with a failure.
    const wire = (round: number) =>
      Array.from({ length: 30 }, (_, i) => ({ external_id: `feed-${i}`, headline: `Feed ${i}`, tags: (i + round) % 2 ? ['Local', 'weather'] : ['sport'] })).concat([
        { external_id: `feed-new-${round}`, headline: `New in round ${round}`, tags: ['local'] },
      ])
    expect((await client.post('/v1/articles/bulk', { articles: wire(0) })).status).toBe(200)
    const answers = await Promise.all([
      ...[1, 2, 3, 4].map((round) => client.post('/v1/articles/bulk', { articles: wire(round) })),
      ...Array.from({ length: 24 }, (_, i) => client.post('/v1/articles', { headline: `Beside the feed ${i}`, tags: i % 2 ? ['LOCAL'] : ['sport', 'weather'] })),
    ])
    expect(answers.map((answer) => answer.status).sort()).toEqual([...Array(4).fill(200), ...Array(24).fill(201)].sort())
    await expectTagCountsKeptExactly(newsroom.tenant.id)
    await expectExactTagTotals()
  })

  it('are removed with their newsroom', async () => {
    const gone = await createTestTenant()
    await db.article.createMany({ data: Array.from({ length: 12 }, (_, i) => articleAt(i, gone)) })
    await db.tenant.delete({ where: { id: gone.tenant.id } })
    expect(await db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM article_tag_counts WHERE tenant_id = ${gone.tenant.id}`).toEqual([{ n: 0 }])
  })
})
