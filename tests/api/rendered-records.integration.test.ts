import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { db } from '../../lib/db/client.ts'
import { createId } from '../../lib/ids.ts'
import { listArticleRecords, listArticles } from '../../lib/articles/list-articles.ts'
import { toListedArticleRecord } from '../../lib/articles/search-articles.ts'
import { forgetRenderedRecords, readByKey, renderedRecordBytes } from '../../lib/articles/rendered-records.ts'
import { updateArticle } from '../../lib/articles/update-article.ts'
import { transitionArticle } from '../../lib/articles/transition-article.ts'
import { listArticlesQuerySchema } from '../../lib/articles/article-schemas.ts'
import { backfillState } from '../../lib/db/data-migrations/backfill-state.ts'
import { parseInput } from '../../lib/parse-input.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// The API's list pages show each article's record from bytes kept by (article, version): the
// page read names the articles, and only those not kept are read with their bodies. A page must
// show exactly what the objects' page shows, and the new record the moment an article changes.

const start = Date.parse('2026-04-01T00:00:00Z')
let newsroom: TestTenant
let other: TestTenant
const ids: string[] = []

beforeAll(async () => {
  newsroom = await createTestTenant()
  other = await createTestTenant()
  const data = (tenant: TestTenant) =>
    Array.from({ length: 60 }, (_, i) => {
      const id = createId('art')
      if (tenant === newsroom) ids.push(id)
      return {
        id,
        tenantId: tenant.tenant.id,
        headline: `Kept record ${i}`,
        lede: i % 4 === 0 ? null : `Lede ${i} — with “quotes”`,
        body: `<p>Body ${i} of ${tenant === newsroom ? 'ours' : 'theirs'}: the council’s plan.</p>`,
        tags: i % 3 === 0 ? ['Council', 'riverside'] : [],
        status: i % 7 === 0 ? ('draft' as const) : ('published' as const),
        publishedAt: i % 7 === 0 ? null : new Date(start + i * 60_000),
        authorId: tenant.users.writer.id,
      }
    })
  await db.article.createMany({ data: data(newsroom) })
  await db.article.createMany({ data: data(other) })
})

afterEach(() => {
  backfillState.bodiesMayBeUnclean = false
})

const query = (input: Record<string, string>) => parseInput(listArticlesQuerySchema, input)

/** The page as the API sends it, through JSON, from the kept records and from the objects. */
async function bothPages(tenant: TestTenant, input: Record<string, string>) {
  const records = await listArticleRecords(tenant.actor('writer'), query(input))
  const objects = await listArticles(tenant.actor('writer'), query(input))
  const { nextCursor: _recordsCursor, ...recordsPage } = records
  const { nextCursor: _objectsCursor, ...objectsPage } = objects
  return {
    fromRecords: JSON.parse(JSON.stringify({ ...recordsPage, items: records.items })),
    fromObjects: JSON.parse(JSON.stringify({ ...objectsPage, items: objects.items.map(toListedArticleRecord) })),
  }
}

/** Asks pages until they are read the way wanted: by key once most records are found kept. */
async function readingByKey(wanted: boolean) {
  if (!wanted) forgetRenderedRecords()
  for (let page = 0; page < 100 && readByKey() !== wanted; page++) await listArticleRecords(newsroom.actor('writer'), query({ limit: '50' }))
  expect(readByKey()).toBe(wanted)
}

const pages: [string, Record<string, string>][] = [
  ['the newest first', {}],
  ['a second page', { limit: '20', offset: '20' }],
  ['the changes feed', { sort: 'updated_at', limit: '25' }],
  ['a tag', { tag: 'council' }],
  ['drafts', { status: 'draft' }],
  ['a search in list order', { q: 'council', sort: 'published_at' }],
  ['a search by relevance', { q: 'riverside' }],
  ['a publication range', { published_after: new Date(start + 10 * 60_000).toISOString(), published_before: new Date(start + 30 * 60_000).toISOString() }],
]

describe.each([
  ['whole, while few records are found kept', false],
  ['by key, once most are', true],
])('list pages read %s', (_mode, byKey) => {
  it.each(pages)('%s: the same page as the articles read whole', async (_name, input) => {
    await readingByKey(byKey)
    const { fromRecords, fromObjects } = await bothPages(newsroom, input)
    expect(fromRecords.items.length).toBeGreaterThan(0)
    expect(fromRecords).toEqual(fromObjects)
  })
})

describe('list pages from kept article records', () => {
  it('turns to reading by key when pages overlap; with nothing kept, pages are read whole', async () => {
    forgetRenderedRecords()
    expect(readByKey()).toBe(false)
    await readingByKey(true)
    // Nothing kept any more (a restart, or traffic that moved on): after a few pages, whole reads again.
    forgetRenderedRecords()
    expect(readByKey()).toBe(false)
    await listArticleRecords(newsroom.actor('writer'), query({ limit: '50' }))
    expect(readByKey()).toBe(false)
  })

  it('keeps the records of a search by relevance read whole the second time, so that asked again it is read by key', async () => {
    forgetRenderedRecords()
    const search = () => listArticleRecords(newsroom.actor('writer'), query({ q: 'riverside' }))
    const first = JSON.parse(JSON.stringify(await search()))
    expect(readByKey()).toBe(false)
    // Rendered once, a record is not kept (pages that never overlap would only churn the budget).
    expect(renderedRecordBytes()).toBe(0)
    expect(JSON.parse(JSON.stringify(await search()))).toEqual(first)
    expect(renderedRecordBytes()).toBeGreaterThan(0)
    for (let page = 0; page < 100 && !readByKey(); page++) await search()
    expect(readByKey()).toBe(true)
    expect(JSON.parse(JSON.stringify(await search()))).toEqual(first)
  })

  it('keeps nothing of pages that never overlap, and the records of a page asked again', async () => {
    forgetRenderedRecords()
    const page = (offset: number) => listArticleRecords(newsroom.actor('writer'), query({ limit: '10', offset: String(offset) }))
    for (const offset of [0, 10, 20, 30]) await page(offset)
    expect(renderedRecordBytes()).toBe(0)
    await page(10)
    expect(renderedRecordBytes()).toBeGreaterThan(0)
    const kept = renderedRecordBytes()
    // Asked a third time, its records are found kept: nothing more is kept.
    await page(10)
    expect(renderedRecordBytes()).toBe(kept)
  })

  it('shows an edit, a move and a publication at once, though the record before was kept', async () => {
    await readingByKey(true)
    const id = ids[5]!
    const shown = async () => (await listArticleRecords(newsroom.actor('editor'), query({ limit: '100' }))).items.map((item) => JSON.parse(JSON.stringify(item))).find((item) => item.article_id === id)
    const before = await shown()
    expect(before.headline).toBe('Kept record 5')

    await updateArticle(newsroom.actor('editor'), id, { headline: 'Kept record 5, corrected', body: '<p>New body</p>' })
    const edited = await shown()
    expect(edited).toMatchObject({ headline: 'Kept record 5, corrected', body: '<p>New body</p>', version: before.version + 1 })

    await transitionArticle(newsroom.actor('editor'), id, { to_state: 'archived' })
    expect((await shown()).status).toBe('archived')
  })

  it('never shows another newsroom its records, though both were kept', async () => {
    for (const [tenant, word, theirs] of [[newsroom, 'ours', 'theirs'], [other, 'theirs', 'ours'], [newsroom, 'ours', 'theirs']] as const) {
      const page = await listArticleRecords(tenant.actor('writer'), query({ limit: '100' }))
      const bodies = page.items.map((item) => JSON.parse(JSON.stringify(item)).body as string)
      expect(bodies.length).toBe(60)
      // One of ours was edited above.
      expect(bodies.filter((body) => body.includes(` of ${word}:`)).length).toBeGreaterThanOrEqual(59)
      expect(bodies.filter((body) => body.includes(` of ${theirs}:`))).toEqual([])
    }
  })

  it('keeps nothing while stored bodies may still be unclean, and shows them sanitised', async () => {
    const id = createId('art')
    await db.article.create({ data: { id, tenantId: newsroom.tenant.id, headline: 'Stored before sanitising', body: '<p onclick="x()">Old</p><script>bad()</script>', status: 'draft', authorId: newsroom.users.writer.id } })
    backfillState.bodiesMayBeUnclean = true
    const keptBefore = renderedRecordBytes()
    const page = await listArticleRecords(newsroom.actor('writer'), query({ status: 'draft', limit: '100' }))
    const record = page.items.map((item) => JSON.parse(JSON.stringify(item))).find((item) => item.article_id === id)
    expect(record.body).toBe('<p>Old</p>')
    expect(renderedRecordBytes()).toBe(keptBefore)
  })
})
