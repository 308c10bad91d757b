import { beforeAll, describe, expect, it, vi } from 'vitest'
import pg from 'pg'
import { db } from '../../lib/db/client.ts'
import { createId } from '../../lib/ids.ts'
import { listArticleRecords, listArticles } from '../../lib/articles/list-articles.ts'
import { planStableFilter } from '../../lib/articles/plan-stable-filter.ts'
import { listArticlesQuerySchema } from '../../lib/articles/article-schemas.ts'
import { parseInput } from '../../lib/parse-input.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// A list bounded only by publication or update time runs prepared (tenantSql's `prepare`):
// after five runs on a connection PostgreSQL may keep one generic plan for every bound. Each
// bound must still get its own page and its own exact total, as the unprepared list did.

const start = Date.parse('2026-03-01T00:00:00Z')
let newsroom: TestTenant
let other: TestTenant
type Row = { id: string; publishedAt: Date | null; createdAt: Date }
const rows: Row[] = []

beforeAll(async () => {
  newsroom = await createTestTenant()
  other = await createTestTenant()
  const created = new Date(start)
  for (let i = 0; i < 240; i++) {
    // Three an hour over 80 hours, a few unpublished, several sharing a publication time.
    const publishedAt = i % 11 === 0 ? null : new Date(start + Math.floor(i / 3) * 3_600_000 + (i % 3) * 60_000 * (i % 2))
    rows.push({ id: createId('art'), publishedAt, createdAt: new Date(created.getTime() + i) })
  }
  const data = (tenant: TestTenant) =>
    rows.map((row, i) => ({ ...row, id: tenant === newsroom ? row.id : createId('art'), tenantId: tenant.tenant.id, headline: `Bounded ${i}`, status: row.publishedAt ? ('published' as const) : ('draft' as const), authorId: tenant.users.writer.id }))
  await db.article.createMany({ data: data(newsroom) })
  // Another newsroom's articles at the same times: a plan kept for one newsroom must not show them to another.
  await db.article.createMany({ data: data(other) })
})

/** The list's own order: newest publication first, unpublished last, then created_at and id, newest first. */
function expected(before?: number, after?: number): string[] {
  return rows
    .filter((row) => (before === undefined || (row.publishedAt !== null && row.publishedAt.getTime() < before)) && (after === undefined || (row.publishedAt !== null && row.publishedAt.getTime() >= after)))
    .sort((a, b) => (b.publishedAt?.getTime() ?? -Infinity) - (a.publishedAt?.getTime() ?? -Infinity) || b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1))
    .map((row) => row.id)
}

const query = (input: Record<string, string>) => parseInput(listArticlesQuerySchema, input)

describe('lists bounded by time, run as prepared statements', () => {
  it('gives every one of forty bounds its own page and exact total, on connections that have kept a plan', async () => {
    for (let step = 0; step < 40; step++) {
      const before = start + step * 7_200_000 + 1_800_000
      const page = await listArticles(newsroom.actor(), query({ limit: '7', published_before: new Date(before).toISOString() }))
      const want = expected(before)
      expect(page.items.map((item) => item.id)).toEqual(want.slice(0, 7))
      expect(page.total).toBe(want.length)
    }
  })

  it('keeps ranges and their cursors exact too, and the other newsroom its own', async () => {
    for (let step = 0; step < 12; step++) {
      const after = start + step * 3_600_000 * 3
      const before = after + 20 * 3_600_000 + 1
      const first = await listArticles(newsroom.actor(), query({ limit: '10', published_after: new Date(after).toISOString(), published_before: new Date(before).toISOString() }))
      const next = await listArticles(newsroom.actor(), query({ limit: '10', published_after: new Date(after).toISOString(), published_before: new Date(before).toISOString(), cursor: first.nextCursor! }))
      const want = expected(before, after)
      expect([...first.items, ...next.items].map((item) => item.id)).toEqual(want.slice(0, 20))
      expect(first.total).toBe(want.length)
    }
    const theirs = await listArticles(other.actor(), query({ limit: '200', published_before: new Date(start + 50 * 3_600_000).toISOString() }))
    expect(theirs.items.length).toBeGreaterThan(0)
    expect(theirs.items.every((item) => item.tenantId === other.tenant.id)).toBe(true)
  })

  it('reads a page of records and its total in one statement, the same page and total as the list', async () => {
    const sent = vi.spyOn(pg.Client.prototype, 'query')
    const bounds = Array.from({ length: 30 }, (_, step) => new Date(start + step * 9_000_000 + 1_800_000).toISOString())
    const shown = async (input: Record<string, string>) => JSON.parse(JSON.stringify(await listArticleRecords(newsroom.actor(), query(input)))) as { items: { article_id: string }[]; total: number; nextOffset: number | null }
    // Warmed once, so that the count below sees only the pages' own statements.
    await shown({ limit: '7', published_before: bounds[0]! })
    sent.mockClear()
    for (const bound of bounds) {
      const page = await shown({ limit: '7', published_before: bound })
      const want = expected(Date.parse(bound))
      expect(page.items.map((item) => item.article_id)).toEqual(want.slice(0, 7))
      expect(page.total).toBe(want.length)
    }
    // One statement a page (two before: the page and the kept counts' sum, each on its
    // connection), and at most one more where a connection is opened meanwhile (its setting).
    expect(sent.mock.calls.length).toBeLessThanOrEqual(bounds.length + 1)
    sent.mockRestore()
    // Past the end, the page carries no total: it is counted alone, as the list counts it.
    const all = expected()
    for (const offset of ['0', String(all.length - 3), String(all.length), String(all.length + 40)]) {
      const page = await shown({ limit: '7', offset, published_after: new Date(start).toISOString() })
      const list = await listArticles(newsroom.actor(), query({ limit: '7', offset, published_after: new Date(start).toISOString() }))
      expect(page.items.map((item) => item.article_id)).toEqual(list.items.map((item) => item.id))
      expect([page.total, page.nextOffset]).toEqual([list.total, list.nextOffset])
    }
    const empty = await shown({ limit: '7', published_before: new Date(start - 1).toISOString() })
    expect([empty.items, empty.total]).toEqual([[], 0])
  })

  it('plans afresh any filter whose best plan depends on its value', () => {
    expect(planStableFilter({ published_before: '2026-03-02T00:00:00Z', updated_after: '2026-03-01T00:00:00Z' })).toBe(true)
    expect(planStableFilter({})).toBe(true)
    for (const valued of [{ tag: 'rare' }, { status: 'draft' as const }, { department_id: 'dep_1' }, { author_id: 'usr_1' }, { q: 'word' }]) {
      expect(planStableFilter({ published_before: '2026-03-02T00:00:00Z', ...valued })).toBe(false)
    }
  })
})
