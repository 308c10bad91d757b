import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { db } from '../../lib/db/client.ts'
import type { ArticleStatus } from '../../lib/db/generated/enums.ts'
import { planBuckets } from '../../lib/articles/article-counts.ts'
import { articlesChanged } from '../../lib/articles/article-totals.ts'
import { createId } from '../../lib/ids.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// List totals for status, department and publication range are summed from article_counts,
// which triggers keep in the writing transaction (lib/articles/article-counts.ts). Each test
// changes articles the way some write path does and then compares every total with count(*).

const statuses: ArticleStatus[] = ['draft', 'in_review', 'approved', 'published', 'archived']
const apiStatus = (status: ArticleStatus) => status.replace('_', '-')
const start = Date.parse('2026-01-30T22:00:00Z')

let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let other: TestTenant
let client: ReturnType<typeof apiClient>

/** Spread over three months, with many articles in the same hour, day and month. */
function articleAt(i: number, tenant: TestTenant = newsroom) {
  const status = statuses[i % statuses.length]!
  const published = status === 'published' || status === 'archived'
  return {
    id: createId('art'),
    tenantId: tenant.tenant.id,
    headline: `Counted ${i}`,
    status,
    authorId: tenant.users.writer.id,
    departmentId: i % 3 === 2 ? null : tenant.departments[i % 3]!.id,
    publishedAt: published ? new Date(start + ((i * 7_919_731) % (70 * 86_400_000))) : null,
  }
}

beforeAll(async () => {
  server = await startApiServer()
  newsroom = await createTestTenant()
  other = await createTestTenant()
  client = apiClient(server.url, await newsroom.token(['articles:read', 'articles:write']))
  await db.article.createMany({ data: Array.from({ length: 600 }, (_, i) => articleAt(i)) })
  // Another newsroom's articles in the same buckets must never be counted.
  await db.article.createMany({ data: Array.from({ length: 200 }, (_, i) => articleAt(i, other)) })
})
afterAll(() => server.close())

type Filter = { status?: ArticleStatus; department?: string; after?: Date; before?: Date }

/** Filters that cut through hours, days and months, or none, in every combination. */
function filters(): Filter[] {
  const instants = [undefined, new Date(start - 86_400_000), new Date(start + 1_234_567), new Date('2026-02-01T00:00:00Z'), new Date(start + 9 * 86_400_000 + 3_333), new Date('2026-03-15T12:00:00Z'), new Date(start + 69 * 86_400_000 + 77)]
  const result: Filter[] = []
  for (const [a, after] of instants.entries()) {
    for (const before of instants.slice(a + 1).concat([undefined])) {
      for (const status of [undefined, 'published', 'draft'] as const) {
        for (const department of [undefined, newsroom.departments[1]!.id]) result.push({ after, before, status, department })
      }
    }
  }
  return result
}

async function expectExactTotals() {
  // Written around the write paths here, so the cached responses are told as commitArticleChange would.
  await articlesChanged([newsroom.tenant.id])
  for (const filter of filters()) {
    const query = new URLSearchParams({ limit: '1' })
    if (filter.status) query.set('status', apiStatus(filter.status))
    if (filter.department) query.set('department_id', filter.department)
    if (filter.after) query.set('published_after', filter.after.toISOString())
    if (filter.before) query.set('published_before', filter.before.toISOString())
    const answer = await client.get(`/v1/articles?${query}`)
    expect(answer.status, answer.text).toBe(200)
    const counted = await db.article.count({
      where: {
        tenantId: newsroom.tenant.id,
        status: filter.status,
        departmentId: filter.department,
        publishedAt: filter.after || filter.before ? { gte: filter.after, lt: filter.before } : undefined,
      },
    })
    expect(answer.body.total, query.toString()).toBe(counted)
  }
}

/** The kept counts, bucket by bucket, equal what the articles table holds now. */
async function expectCountsKeptExactly(tenantId: string) {
  const kept = await db.$queryRaw<{ grain: string; bucket: Date; status: string; department_id: string; n: bigint }[]>`
    SELECT grain, bucket, status::text, department_id, sum(n)::bigint AS n FROM article_counts WHERE tenant_id = ${tenantId} GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0 ORDER BY 1, 2, 3, 4`
  const actual = await db.$queryRaw<typeof kept>`
    SELECT b.grain, b.bucket, a.status::text, coalesce(a.department_id, '') AS department_id, count(*)::bigint AS n
    FROM articles a CROSS JOIN LATERAL (
      SELECT 'u' AS grain, 'epoch'::timestamptz AS bucket WHERE a.published_at IS NULL
      UNION ALL SELECT g, date_trunc(u, a.published_at, 'UTC') FROM (VALUES ('h', 'hour'), ('d', 'day'), ('m', 'month')) v (g, u) WHERE a.published_at IS NOT NULL) b
    WHERE a.tenant_id = ${tenantId} GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`
  expect(kept).toEqual(actual)
}

describe('planBuckets', () => {
  it('covers a range exactly once with whole months, days and hours and two partial hours at most', () => {
    const hour = 3_600_000
    for (let i = 0; i < 100; i++) {
      const from = Date.parse('2025-11-20T00:00:00Z') + ((i * 982_451_653) % (200 * 86_400_000))
      const to = from + ((i * 2_654_435_761) % (120 * 86_400_000))
      const plan = planBuckets(from, to)
      expect(plan.edges.length).toBeLessThanOrEqual(2)
      for (const edge of plan.edges) expect(edge.to - edge.from).toBeLessThan(hour)
      // Every hour-aligned instant and both edges fall in exactly one part.
      const parts = [...plan.buckets.map((bucket) => ({ from: bucket.from!, to: bucket.to! })), ...plan.edges]
      const probes = [from, to - 1, ...Array.from({ length: 100 }, (_, k) => from + Math.floor(((to - from) * k) / 100))].filter((t) => t >= from && t < to)
      for (const t of probes) expect(parts.filter((part) => part.from <= t && t < part.to)).toHaveLength(1)
      expect(parts.filter((part) => part.to <= from || part.from >= to || part.from >= part.to)).toEqual([])
      const covered = parts.reduce((sum, part) => sum + (part.to - part.from), 0)
      expect(covered).toBe(to - from)
    }
  })

  it('leaves open ends unbounded', () => {
    expect(planBuckets(null, null)).toEqual({ buckets: [{ grain: 'm', from: null, to: null }], edges: [] })
    const before = planBuckets(null, Date.parse('2026-03-02T05:30:00Z'))
    expect(before.buckets).toEqual([
      { grain: 'm', from: null, to: Date.parse('2026-03-01T00:00:00Z') },
      { grain: 'd', from: Date.parse('2026-03-01T00:00:00Z'), to: Date.parse('2026-03-02T00:00:00Z') },
      { grain: 'h', from: Date.parse('2026-03-02T00:00:00Z'), to: Date.parse('2026-03-02T05:00:00Z') },
    ])
    expect(before.edges).toEqual([{ from: Date.parse('2026-03-02T05:00:00Z'), to: Date.parse('2026-03-02T05:30:00Z') }])
  })
})

describe('exact list totals from kept counts', () => {
  it('match count(*) for status, department and publication ranges after a bulk insert', async () => {
    await expectCountsKeptExactly(newsroom.tenant.id)
    await expectCountsKeptExactly(other.tenant.id)
    await expectExactTotals()
  })

  it('follow creates, transitions and publication through the API', async () => {
    for (let i = 0; i < 6; i++) {
      const created = await client.post('/v1/articles', { headline: `Through the API ${i}`, department_id: newsroom.departments[i % 2]!.id })
      expect(created.status, created.text).toBe(201)
      for (const to_state of ['in-review', 'approved', 'published'].slice(0, i % 4)) {
        const moved = await client.post(`/v1/articles/${created.body.article_id}/transitions`, { to_state })
        expect(moved.status, moved.text).toBe(200)
      }
    }
    await expectCountsKeptExactly(newsroom.tenant.id)
    await expectExactTotals()
  })

  it('follow moves between statuses and departments, publication-date changes and deletes', async () => {
    const ids = (await db.article.findMany({ where: { tenantId: newsroom.tenant.id }, select: { id: true }, orderBy: { id: 'asc' } })).map((row) => row.id)
    await db.article.updateMany({ where: { id: { in: ids.slice(0, 40) } }, data: { status: 'archived' } })
    await db.article.updateMany({ where: { id: { in: ids.slice(40, 80) } }, data: { departmentId: newsroom.departments[1]!.id } })
    await db.article.updateMany({ where: { id: { in: ids.slice(80, 120) } }, data: { departmentId: null } })
    await db.article.updateMany({ where: { id: { in: ids.slice(120, 160) } }, data: { publishedAt: new Date('2026-02-01T00:00:00Z'), status: 'published' } })
    await db.article.updateMany({ where: { id: { in: ids.slice(160, 200) } }, data: { publishedAt: null, status: 'draft' } })
    for (const [i, id] of ids.slice(200, 220).entries()) await db.article.update({ where: { id }, data: { publishedAt: new Date(start + i * 3_599_999), status: 'published' } })
    // An edit that moves nothing between buckets.
    await db.article.updateMany({ where: { id: { in: ids.slice(220, 260) } }, data: { headline: 'Renamed' } })
    await db.article.deleteMany({ where: { id: { in: ids.slice(260, 300) } } })
    await expectCountsKeptExactly(newsroom.tenant.id)
    await expectExactTotals()
  })

  it('stay exact under concurrent writes to the same buckets', async () => {
    const ids = (await db.article.findMany({ where: { tenantId: newsroom.tenant.id }, select: { id: true }, orderBy: { id: 'desc' }, take: 60 })).map((row) => row.id)
    const hot = new Date('2026-02-01T00:30:00Z')
    await Promise.all([
      ...Array.from({ length: 20 }, (_, i) => db.article.createMany({ data: [articleAt(1_000 + i * 2), articleAt(1_001 + i * 2)].map((row) => ({ ...row, publishedAt: hot, status: 'published' as const })) })),
      ...ids.slice(0, 30).map((id, i) => db.article.update({ where: { id }, data: { status: i % 2 ? 'published' : 'draft', publishedAt: i % 2 ? hot : null } })),
      ...ids.slice(30, 45).map((id) => db.article.delete({ where: { id } })),
      ...ids.slice(45, 60).map((id, i) =>
        db.$transaction([
          db.article.update({ where: { id }, data: { departmentId: newsroom.departments[i % 2]!.id } }),
          db.article.create({ data: { ...articleAt(2_000 + i), publishedAt: hot, status: 'published' } }),
        ]),
      ),
    ])
    await expectCountsKeptExactly(newsroom.tenant.id)
    await expectExactTotals()
  })

  it('are removed with their newsroom', async () => {
    const gone = await createTestTenant()
    await db.article.createMany({ data: Array.from({ length: 20 }, (_, i) => articleAt(i, gone)) })
    await db.tenant.delete({ where: { id: gone.tenant.id } })
    expect(await db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM article_counts WHERE tenant_id = ${gone.tenant.id}`).toEqual([{ n: 0 }])
  })
})
