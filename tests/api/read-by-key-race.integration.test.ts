import { beforeAll, describe, expect, it, vi } from 'vitest'
import { db } from '../../lib/db/client.ts'
import { createId } from '../../lib/ids.ts'
import { listArticleRecords } from '../../lib/articles/list-articles.ts'
import { forgetRenderedRecords, readByKey } from '../../lib/articles/rendered-records.ts'
import { forgetKeptSnippets } from '../../lib/articles/kept-snippets.ts'
import { transitionArticle } from '../../lib/articles/transition-article.ts'
import { listArticlesQuerySchema } from '../../lib/articles/article-schemas.ts'
import { parseInput } from '../../lib/parse-input.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// A page read by key takes two statements: the page's keys, then the records (or snippets) not
// kept. A write between them must not show a record the page's filter no longer matches: the
// mixed-load test once saw a tag and status list show a story a writer had just moved.

// Runs `between` once, right after the next statement that names a page's articles by key.
const pending: { between?: () => Promise<void> } = {}
vi.mock('../../lib/db/read-routing.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../lib/db/read-routing.ts')>()
  return {
    ...original,
    routedQuery: async (...args: Parameters<typeof original.routedQuery>) => {
      const result = await original.routedQuery(...args)
      const between = pending.between
      // A list's key page, or a search's: its count and keys in one statement (search-articles.ts).
      if (between && /^SELECT ((matched\.)?id, (matched\.)?version|bounded\.matched AS "boundedMatches", page\.\*)/.test(args[1])) {
        pending.between = undefined
        await between()
      }
      return result
    },
  }
})

let newsroom: TestTenant
const ids: string[] = []
// Each case moves a story of its own.
const movedAlready = new Set<string>()

beforeAll(async () => {
  newsroom = await createTestTenant()
  await db.article.createMany({
    data: Array.from({ length: 20 }, (_, i) => {
      const id = createId('art')
      ids.push(id)
      return { id, tenantId: newsroom.tenant.id, headline: `Quayside story ${i}`, body: `<p>Story ${i} from the quayside.</p>`, tags: ['quay'], status: 'in_review' as const, authorId: newsroom.users.writer.id }
    }),
  })
})

const query = (input: Record<string, string>) => parseInput(listArticlesQuerySchema, input)

/** Pages read by key, with nothing of the newsroom's in-review stories kept. */
async function readingByKeyWithNothingKept() {
  forgetRenderedRecords()
  forgetKeptSnippets()
  const other = await createTestTenant()
  await db.article.create({ data: { id: createId('art'), tenantId: other.tenant.id, headline: 'Elsewhere', status: 'draft', authorId: other.users.writer.id } })
  for (let page = 0; page < 100 && !readByKey(); page++) await listArticleRecords(other.actor('writer'), query({ limit: '50' }))
  expect(readByKey()).toBe(true)
}

describe('a page read by key while a writer moves one of its stories', () => {
  it.each([
    ['a tag and status list', { tag: 'quay', status: 'in-review', limit: '50' }],
    ['a search', { q: 'quayside', status: 'in-review', limit: '50' }],
  ])('%s shows only stories that match it, as one snapshot would', async (_name, input) => {
    await readingByKeyWithNothingKept()
    const moved = ids.find((id) => !movedAlready.has(id))!
    movedAlready.add(moved)
    pending.between = async () => {
      await transitionArticle(newsroom.actor('editor'), moved, { to_state: 'approved' })
    }
    const page = await listArticleRecords(newsroom.actor('writer'), query(input))
    expect(pending.between).toBeUndefined()
    const shown: { article_id: string; status: string }[] = JSON.parse(JSON.stringify(page.items))
    expect(shown.length).toBeGreaterThan(0)
    expect(shown.filter((item) => item.status !== 'in-review')).toEqual([])
    expect(shown.map((item) => item.article_id)).not.toContain(moved)
  })
})

