import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { db } from '../../lib/db/client.ts'
import { createId } from '../../lib/ids.ts'
import { listArticleRecords, listArticles } from '../../lib/articles/list-articles.ts'
import { toListedArticleRecord } from '../../lib/articles/search-articles.ts'
import { forgetRenderedRecords, readByKey } from '../../lib/articles/rendered-records.ts'
import { forgetKeptSnippets } from '../../lib/articles/kept-snippets.ts'
import { updateArticle } from '../../lib/articles/update-article.ts'
import { setSearchLanguage } from '../../lib/articles/search-language.ts'
import { listArticlesQuerySchema } from '../../lib/articles/article-schemas.ts'
import { parseInput } from '../../lib/parse-input.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// Read by key, a search page shows snippets kept from an earlier page of the same query where
// the article has not changed since. A kept snippet must never show what the article or the
// newsroom's search language no longer says.

let newsroom: TestTenant
const ids: string[] = []

beforeAll(async () => {
  newsroom = await createTestTenant()
  await db.article.createMany({
    data: Array.from({ length: 30 }, (_, i) => {
      const id = createId('art')
      ids.push(id)
      return {
        id,
        tenantId: newsroom.tenant.id,
        headline: `Harbour story ${i}`,
        lede: null,
        body: `<p>Story ${i}: the harbour board met and its plan and its plans were read to the quay in full.</p>`,
        status: 'published' as const,
        publishedAt: new Date(Date.parse('2026-04-01T00:00:00Z') + i * 60_000),
        authorId: newsroom.users.writer.id,
      }
    }),
  })
})

const query = (input: Record<string, string>) => parseInput(listArticlesQuerySchema, input)

/** Lists until pages are read by key (most records found kept), as steady traffic reads them. */
beforeEach(async () => {
  forgetRenderedRecords()
  forgetKeptSnippets()
  for (let page = 0; page < 100 && !readByKey(); page++) await listArticleRecords(newsroom.actor('writer'), query({ limit: '50' }))
  expect(readByKey()).toBe(true)
})

/** Each article's snippet on the search page the API sends, by id. */
async function snippets(q: string): Promise<Map<string, string>> {
  const page = await listArticleRecords(newsroom.actor('writer'), query({ q, limit: '50' }))
  return new Map(page.items.map((item) => JSON.parse(JSON.stringify(item))).map((item) => [item.article_id, item.match.snippet]))
}

describe('search snippets kept between pages', () => {
  it('are the snippets a page read whole makes, asked once or again', async () => {
    const whole = await listArticles(newsroom.actor('writer'), query({ q: 'quay', limit: '50' }))
    const listed: { article_id: string; match: { snippet: string } }[] = JSON.parse(JSON.stringify(whole.items.map(toListedArticleRecord)))
    const expected = new Map(listed.map((item) => [item.article_id, item.match.snippet]))
    expect(expected.size).toBe(30)
    expect(expected.get(ids[3]!)).toContain('<mark>quay</mark>')
    expect(await snippets('quay')).toEqual(expected)
    expect(await snippets('quay')).toEqual(expected)
  })

  it('show an edited article’s new words at once', async () => {
    const id = ids[7]!
    expect((await snippets('quay')).get(id)).toContain('read to the <mark>quay</mark>')
    await updateArticle(newsroom.actor('editor'), id, { body: '<p>Corrected: the quay was closed to the public all week.</p>' })
    const after = await snippets('quay')
    expect(after.get(id)).toContain('Corrected: the <mark>quay</mark> was closed')
    expect(after.get(ids[8]!)).toContain('read to the <mark>quay</mark>')
  })

  it('mark what the newsroom’s new search language matches', async () => {
    // 'simple' matches words as typed: "plans" is another word than "plan".
    const simple = await snippets('plan')
    expect(simple.get(ids[2]!)).toContain('its <mark>plan</mark> and its plans')
    await setSearchLanguage(newsroom.tenant.id, 'english')
    try {
      // English stems both to "plan"; the articles' versions did not change.
      expect((await snippets('plan')).get(ids[2]!)).toContain('its <mark>plan</mark> and its <mark>plans</mark>')
    } finally {
      await setSearchLanguage(newsroom.tenant.id, 'simple')
    }
  })
})
