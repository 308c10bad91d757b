import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { db } from '../../lib/db/client.ts'
import type { ArticleStatus } from '../../lib/db/generated/enums.ts'
import { createId } from '../../lib/ids.ts'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let client: ReturnType<typeof apiClient>

const statuses: ArticleStatus[] = ['draft', 'in_review', 'approved', 'published', 'archived']
const base = Date.parse('2026-06-01T00:00:00Z')
type Row = { id: string; status: ArticleStatus; departmentId: string; authorId: string; tags: string[]; publishedAt: Date | null; createdAt: Date }
let rows: Row[] = []

beforeAll(async () => {
  server = await startApiServer()
  newsroom = await createTestTenant()
  client = apiClient(server.url, await newsroom.token(['articles:read']))
  // 1,000 articles; published_at takes only 20 distinct values, so ties are everywhere.
  rows = Array.from({ length: 1_000 }, (_, i) => {
    const status = statuses[i % 5]!
    const published = status === 'published' || (status === 'archived' && i % 2 === 0)
    return {
      id: createId('art'),
      status,
      departmentId: newsroom.departments[i % 2]!.id,
      authorId: i % 3 === 0 ? newsroom.users.writer.id : newsroom.users.editor.id,
      tags: i % 4 === 0 ? ['sport', 'local'] : ['news'],
      publishedAt: published ? new Date(base + (i % 20) * 86_400_000) : null,
      createdAt: new Date(base + (i % 7) * 1_000),
    }
  })
  await db.article.createMany({ data: rows.map((row, i) => ({ ...row, tenantId: newsroom.tenant.id, headline: `Article ${i}` })) })
})
afterAll(() => server.close())

function expectedOrder(list: Row[]): string[] {
  return [...list]
    .sort((a, b) => {
      const pa = a.publishedAt?.getTime() ?? -Infinity
      const pb = b.publishedAt?.getTime() ?? -Infinity
      if (pa !== pb) return pb - pa
      if (a.createdAt.getTime() !== b.createdAt.getTime()) return b.createdAt.getTime() - a.createdAt.getTime()
      return a.id < b.id ? 1 : -1
    })
    .map((row) => row.id)
}

async function walk(query: string, limit: number): Promise<{ ids: string[]; totals: Set<number> }> {
  const ids: string[] = []
  const totals = new Set<number>()
  let offset: number | null = 0
  while (offset !== null) {
    const answer: { status: number; body: any } = await client.get(`/v1/articles?${query}&limit=${limit}&offset=${offset}`)
    expect(answer.status).toBe(200)
    expect(answer.body.limit).toBe(limit)
    expect(answer.body.offset).toBe(offset)
    ids.push(...answer.body.items.map((item: { article_id: string }) => item.article_id))
    totals.add(answer.body.total)
    offset = answer.body.next_offset
  }
  return { ids, totals }
}

describe('listing articles', () => {
  it('walks all 1,000 articles page by page, each exactly once, in the documented order', async () => {
    const { ids, totals } = await walk('', 200)
    expect(totals).toEqual(new Set([1_000]))
    expect(new Set(ids).size).toBe(1_000)
    expect(ids).toEqual(expectedOrder(rows))
    const small = await walk('', 37)
    expect(small.ids).toEqual(ids)
  })

  it('defaults to 50 items and offset 0', async () => {
    const answer = await client.get('/v1/articles')
    expect(answer.body.items).toHaveLength(50)
    expect(answer.body).toMatchObject({ total: 1_000, limit: 50, offset: 0, next_offset: 50 })
    const last = await client.get('/v1/articles?offset=990&limit=50')
    expect(last.body.items).toHaveLength(10)
    expect(last.body.next_offset).toBeNull()
    const beyond = await client.get('/v1/articles?offset=5000')
    expect(beyond.body).toMatchObject({ items: [], total: 1_000, next_offset: null })
  })

  it('refuses limit and offset out of range', async () => {
    for (const query of ['limit=0', 'limit=201', 'limit=abc', 'offset=-1', 'limit=2.5']) {
      const answer = await client.get(`/v1/articles?${query}`)
      expect(answer.status, query).toBe(422)
    }
    expect((await client.get('/v1/articles?limit=200')).body.items).toHaveLength(200)
    expect((await client.get('/v1/articles?limit=1')).body.items).toHaveLength(1)
  })

  const filters: [string, (row: Row) => boolean][] = [
    ['status=in-review', (row) => row.status === 'in_review'],
    ['status=published', (row) => row.status === 'published'],
    ['tag=sport', (row) => row.tags.includes('sport')],
    ['published_after=2026-06-10T00:00:00Z', (row) => row.publishedAt !== null && row.publishedAt.getTime() >= Date.parse('2026-06-10T00:00:00Z')],
    ['published_before=2026-06-05T00:00:00Z', (row) => row.publishedAt !== null && row.publishedAt.getTime() < Date.parse('2026-06-05T00:00:00Z')],
  ]
  for (const [query, predicate] of filters) {
    it(`filters by ${query}`, async () => {
      const { ids } = await walk(query, 200)
      expect(ids).toEqual(expectedOrder(rows.filter(predicate)))
      expect(ids.length).toBeGreaterThan(0)
    })
  }

  it('filters by author and department, and combines every filter with AND', async () => {
    const byAuthor = await walk(`author_id=${newsroom.users.writer.id}`, 200)
    expect(byAuthor.ids).toEqual(expectedOrder(rows.filter((row) => row.authorId === newsroom.users.writer.id)))
    const department = newsroom.departments[1]!.id
    const byDepartment = await walk(`department_id=${department}`, 200)
    expect(byDepartment.ids).toEqual(expectedOrder(rows.filter((row) => row.departmentId === department)))

    const combined = await walk(
      `status=published&department_id=${department}&tag=news&author_id=${newsroom.users.editor.id}&published_after=2026-06-03T00:00:00Z&published_before=2026-06-15T00:00:00Z`,
      25,
    )
    const expected = rows.filter(
      (row) =>
        row.status === 'published' && row.departmentId === department && row.tags.includes('news') && row.authorId === newsroom.users.editor.id &&
        row.publishedAt!.getTime() >= Date.parse('2026-06-03T00:00:00Z') && row.publishedAt!.getTime() < Date.parse('2026-06-15T00:00:00Z'),
    )
    expect(expected.length).toBeGreaterThan(0)
    expect(combined.ids).toEqual(expectedOrder(expected))
  })

  it('refuses malformed filters with field errors', async () => {
    const answer = await client.get('/v1/articles?status=live&published_after=yesterday')
    expect(answer.status).toBe(422)
    expect(answer.body.errors.map((error: { field: string }) => error.field).sort()).toEqual(['published_after', 'status'])
  })
})
