import { beforeAll, describe, expect, it } from 'vitest'
import { articlesChanged } from '../../lib/articles/article-totals.ts'
import { deepOffset, listArticles } from '../../lib/articles/list-articles.ts'
import { db } from '../../lib/db/client.ts'
import type { ArticleStatus } from '../../lib/db/generated/enums.ts'
import { createId } from '../../lib/ids.ts'
import { tenantSql } from '../../lib/tenancy/tenant-sql.ts'
import { articleRecordColumns, type StoredArticleRecord } from '../../lib/articles/article-rows.ts'
import { storedArticleRecord, toArticleRecord } from '../../lib/articles/article-record.ts'
import { deepFeedNewsroom } from '../support/changes-feed.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// The article list reads through tenantSql instead of Prisma, for speed. It must return exactly
// what Prisma returns for the same rows: every field, type and null, in the same order.

let newsroom: TestTenant
let other: TestTenant
const statuses: ArticleStatus[] = ['draft', 'in_review', 'approved', 'published', 'archived']

beforeAll(async () => {
  ;[newsroom, other] = await Promise.all([createTestTenant(), createTestTenant()])
  const base = Date.parse('2026-03-01T08:00:00.123Z')
  await db.article.createMany({
    data: Array.from({ length: 40 }, (_, i) => ({
      id: createId('art'),
      tenantId: newsroom.tenant.id,
      externalId: i % 3 === 0 ? `WIRE-${i}` : null,
      headline: `Headline ${i} — “quoted” & <b>marked</b>`,
      lede: i % 4 === 0 ? null : `Lede ${i}`,
      body: i % 5 === 0 ? null : `<p>Body ${i}</p>`.repeat(20),
      departmentId: i % 2 === 0 ? newsroom.departments[0]!.id : null,
      tags: i % 3 === 0 ? [] : ['news', `tag-${i % 4}`, 'ünïcode'],
      status: statuses[i % 5]!,
      authorId: i % 2 === 0 ? newsroom.users.writer.id : newsroom.users.editor.id,
      publishedAt: statuses[i % 5] === 'published' ? new Date(base + (i % 7) * 3_600_000) : null,
      scheduledPublishAt: i === 7 ? new Date(base + 86_400_000) : null,
      url: statuses[i % 5] === 'published' ? `https://news.example/${i}` : null,
      version: 1 + (i % 3),
      createdAt: new Date(base + (i % 9) * 1_000),
    })),
  })
  await db.article.create({ data: { id: createId('art'), tenantId: other.tenant.id, headline: 'Theirs', authorId: other.users.writer.id } })
})

describe('the article list through tenantSql', () => {
  it('holds the same articles as Prisma, in the same order, with the same total, for each filter', async () => {
    const tenantId = newsroom.tenant.id
    const order = [{ publishedAt: { sort: 'desc', nulls: 'last' } }, { createdAt: 'desc' }, { id: 'desc' }] as const
    const cases = [
      [{}, {}],
      [{ status: 'in-review' }, { status: 'in_review' }],
      [{ status: 'published', published_after: '2026-03-01T09:00:00Z', published_before: '2026-03-01T12:00:00Z' }, { status: 'published', publishedAt: { gte: new Date('2026-03-01T09:00:00Z'), lt: new Date('2026-03-01T12:00:00Z') } }],
      [{ tag: 'tag-2' }, { tags: { has: 'tag-2' } }],
      [{ department_id: newsroom.departments[0]!.id, author_id: newsroom.users.writer.id }, { departmentId: newsroom.departments[0]!.id, authorId: newsroom.users.writer.id }],
    ] as const
    for (const [filter, where] of cases) {
      const expected = await db.article.findMany({ where: { tenantId, ...where }, orderBy: [...order], skip: 3, take: 10 })
      const page = await listArticles(newsroom.actor('writer'), { ...filter, limit: 10, offset: 3 })
      expect(page.items).toEqual(expected)
      expect(page.total).toBe(await db.article.count({ where: { tenantId, ...where } }))
    }
  })

  it('reads a page deep in the list (past deepOffset) the same way', async () => {
    const deep = await createTestTenant()
    const tenantId = deep.tenant.id
    await db.article.createMany({
      data: Array.from({ length: deepOffset + 60 }, (_, i) => ({
        id: createId('art'),
        tenantId,
        headline: `Deep ${i}`,
        authorId: deep.users.editor.id,
        status: i % 2 === 0 ? 'published' : 'draft',
        publishedAt: i % 2 === 0 ? new Date(Date.UTC(2026, 0, 1, 0, i % 50)) : null,
        createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i % 13)),
      })),
    })
    const order = [{ publishedAt: { sort: 'desc', nulls: 'last' } }, { createdAt: 'desc' }, { id: 'desc' }] as const
    const byAuthor = deep.users.editor.id
    for (const [filter, where] of [[{}, {}], [{ author_id: byAuthor }, { authorId: byAuthor }]] as const) {
      const offset = deepOffset + 5
      const expected = await db.article.findMany({ where: { tenantId, ...where }, orderBy: [...order], skip: offset, take: 50 })
      const page = await listArticles(deep.actor('writer'), { ...filter, limit: 50, offset })
      expect(page.items).toEqual(expected)
      expect(page.items.length).toBeGreaterThan(0)
    }
    const last = await listArticles(deep.actor('writer'), { limit: 50, offset: deepOffset + 30 })
    expect(last.items).toHaveLength(30)
    expect(last.nextOffset).toBeNull()
  })

  it('pages the changes feed deep by offset from the marks of pages read before, exactly while the article generation stands', async () => {
    const { newsroom: deep, tenantId, counted, feed } = await deepFeedNewsroom(deepOffset + 80)
    const offset = deepOffset + 5
    const first = await feed(offset)
    expect(first).toEqual(await counted(offset, 20))
    // A client walking by offset: each next page starts where the one before ended.
    expect(await feed(offset + 20)).toEqual(await counted(offset + 20, 20))
    expect(await feed(offset + 40)).toEqual(await counted(offset + 40, 20))
    expect(await feed(offset + 70)).toEqual(await counted(offset + 70, 20))
    expect(await feed(offset + 70)).toHaveLength(5)

    // A change the generation does not record (no write path makes one): the same offset is read
    // from its mark, not counted again, so the page stays the one before, shifted by nothing.
    const moved = (await counted(3, 1))[0]!
    await db.$executeRawUnsafe(`UPDATE articles SET version = version + 1, updated_at = now() WHERE id = $1`, moved)
    expect(await feed(offset)).toEqual(first)
    // Once the generation records it, as every write path does, the feed is counted again.
    await articlesChanged([tenantId])
    const shifted = await counted(offset, 20)
    expect(shifted).toEqual([...first.slice(1), (await counted(offset + 19, 1))[0]])
    expect(await feed(offset)).toEqual(shifted)
    expect(await feed(offset + 20)).toEqual(await counted(offset + 20, 20))

    // With filters, updated_after's bound among them: marks of their own, on the same terms.
    const filtered = async (offset: number) =>
      (await listArticles(deep.actor('writer'), { sort: 'updated_at', limit: 20, offset, author_id: deep.users.editor.id, updated_after: '2026-01-01T00:00:00.000Z' })).items.map((article) => article.id)
    const countedFiltered = async (offset: number) =>
      (await db.$queryRawUnsafe<{ id: string }[]>(
        `SELECT id FROM articles WHERE tenant_id = $1 AND author_id = $2 AND updated_at >= '2026-01-01T00:00:00.000Z' AND change_xid < articles_change_horizon() ORDER BY change_xid, updated_at, id LIMIT 20 OFFSET $3`,
        tenantId,
        deep.users.editor.id,
        offset,
      )).map((row) => row.id)
    for (const at of [offset, offset, offset + 20, offset + 25]) expect(await filtered(at)).toEqual(await countedFiltered(at))
  })

  it('renders the same record from a row read with articleRecordColumns as from the Prisma article', async () => {
    const tenantId = newsroom.tenant.id
    const articles = await db.article.findMany({ where: { tenantId }, orderBy: { id: 'asc' } })
    const rows = await tenantSql(tenantId).rows<StoredArticleRecord>(`SELECT ${articleRecordColumns} FROM articles WHERE tenant_id = $1 ORDER BY id`)
    expect(rows.map((row) => JSON.stringify(storedArticleRecord(row)))).toEqual(articles.map((article) => JSON.stringify(toArticleRecord(article))))
    // Every state, the in-review spelling among them, and a slug that follows the headline.
    expect(new Set(rows.map((row) => row.status))).toEqual(new Set(['draft', 'in-review', 'approved', 'published', 'archived']))
    expect(rows.some((row) => row.slug === null)).toBe(true)
  })

  it('never reads another tenant’s rows, and refuses a statement without the tenant filter', async () => {
    const page = await listArticles(newsroom.actor('writer'), { limit: 200, offset: 0 })
    expect(page.items.map((article) => article.tenantId)).toEqual(Array(40).fill(newsroom.tenant.id))
    await expect(tenantSql(newsroom.tenant.id).rows('SELECT id FROM articles')).rejects.toThrow(/tenant_id = \$1/)
  })
})
