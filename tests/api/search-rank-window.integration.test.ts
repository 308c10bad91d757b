import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { stubEnv } from '../support/stub-env.ts'

// A search ranks only its newest SEARCH_RANK_WINDOW matches and counts exactly only up to it
// (lib/articles/search-articles.ts): here a window of 3, so a few articles show every path.
// Whatever the path, walking the pages returns every match exactly once.

let server: Awaited<ReturnType<typeof startApiServer>>
let client: ReturnType<typeof apiClient>
let sparse: ReturnType<typeof apiClient>
let dense: TestTenant
let few: TestTenant
let fresh: ReturnType<typeof apiClient>
const keyOf = new Map<string, string>()
// Between the updates of m4 and m5.
let afterM4 = ''

async function create(to: ReturnType<typeof apiClient>, key: string, article: Record<string, unknown>) {
  const answer = await to.post('/v1/articles', article)
  expect(answer.status, answer.text).toBe(201)
  keyOf.set(answer.body.article_id, key)
}

beforeAll(async () => {
  stubEnv({ SEARCH_RANK_WINDOW: '3' })
  server = await startApiServer()
  dense = await createTestTenant()
  few = await createTestTenant()
  client = apiClient(server.url, await dense.token(['articles:read', 'articles:write']))
  sparse = apiClient(server.url, await few.token(['articles:read', 'articles:write']))
  // Oldest first, so the list order (newest first) is m8, m7, ..., m1: a match in the
  // headline ranks above one in the body.
  for (let i = 1; i <= 8; i++) {
    await create(client, `m${i}`, i % 3 === 1 ? { headline: `Harbour news ${i}` } : { headline: `Other news ${i}`, body: `<p>Down at the harbour, item ${i}.</p>` })
    if (i === 4) {
      await new Promise((resolve) => setTimeout(resolve, 20))
      afterM4 = new Date().toISOString()
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
  // In the second newsroom, four matches behind more non-matching articles than the window's
  // walk looks at (40 per window row): the index of words finds them.
  for (let i = 1; i <= 4; i++) await create(sparse, `s${i}`, { headline: `Harbour ${i}` })
  const filler = await sparse.post('/v1/articles/bulk', { articles: Array.from({ length: 130 }, (_, i) => ({ external_id: `filler-${i}`, headline: `Filler ${i}` })) })
  expect(filler.status, filler.text).toBe(200)
  // In a third, the newest article matches (so the walk is tried) but the other three matches
  // are behind the walk's reach: the walk falls short and the index of words finds them.
  const third = await createTestTenant()
  fresh = apiClient(server.url, await third.token(['articles:read', 'articles:write']))
  for (let i = 1; i <= 3; i++) await create(fresh, `f${i}`, { headline: `Harbour ${i}` })
  const older = await fresh.post('/v1/articles/bulk', { articles: Array.from({ length: 130 }, (_, i) => ({ external_id: `filler-${i}`, headline: `Filler ${i}` })) })
  expect(older.status, older.text).toBe(200)
  await create(fresh, 'f4', { headline: 'Other news', body: '<p>Down at the harbour.</p>' })
}, 60_000)

afterAll(() => server.close())

async function walk(to: ReturnType<typeof apiClient>, query: string, limit: number, filters = '') {
  const pages: { keys: string[]; total: number; estimate: boolean | undefined; next: number | null }[] = []
  for (let offset: number | null = 0; offset !== null; ) {
    const answer: { status: number; text: string; body: any } = await to.get(`/v1/articles?q=${encodeURIComponent(query)}&limit=${limit}&offset=${offset}${filters}`)
    expect(answer.status, answer.text).toBe(200)
    pages.push({
      keys: answer.body.items.map((item: { article_id: string }) => keyOf.get(item.article_id)),
      total: answer.body.total,
      estimate: answer.body.total_is_estimate,
      next: answer.body.next_offset,
    })
    offset = answer.body.next_offset
    expect(pages.length).toBeLessThan(20)
  }
  return pages
}

describe('a search matching more than its rank window', () => {
  it('orders the newest matches by relevance, then the older ones newest first, each exactly once, with an estimated total', async () => {
    const pages = await walk(client, 'harbour', 2)
    // The window is m8, m7, m6; m7 has the word in its headline, the others in their bodies.
    expect(pages.flatMap((page) => page.keys)).toEqual(['m7', 'm8', 'm6', 'm5', 'm4', 'm3', 'm2', 'm1'])
    expect(pages[0]).toMatchObject({ estimate: true, next: 2 })
    expect(pages[0]!.total).toBeGreaterThanOrEqual(4)
    // The page past the last match ends the walk, and its total is the exact count.
    expect(pages.at(-1)).toEqual({ keys: [], total: 8, estimate: undefined, next: null })
  })

  it('pages across the window edge without losing or repeating a match', async () => {
    const keys = (await walk(client, 'harbour', 3)).flatMap((page) => page.keys)
    expect(keys).toEqual(['m7', 'm8', 'm6', 'm5', 'm4', 'm3', 'm2', 'm1'])
    expect(new Set((await walk(client, 'harbour', 5)).flatMap((page) => page.keys))).toEqual(new Set(keys))
  })

  it('keeps the other filters on the ranked window', async () => {
    const later = await walk(client, 'harbour', 2, '&updated_before=2100-01-01T00:00:00.000Z')
    expect(later.flatMap((page) => page.keys)).toEqual(['m7', 'm8', 'm6', 'm5', 'm4', 'm3', 'm2', 'm1'])
    expect(later[0]).toMatchObject({ estimate: true })
    const none = await walk(client, 'harbour', 2, '&updated_before=2000-01-01T00:00:00.000Z')
    expect(none).toEqual([{ keys: [], total: 0, estimate: undefined, next: null }])
  })

  it('ranks the newest matches within an update bound that leaves out the newest articles', async () => {
    // The walk takes the newest articles, then the bound (its generic plan keeps it to the newest
    // of the list-order index): m8-m5 are walked past, and the window is m4, m3, m2.
    const pages = await walk(client, 'harbour', 2, `&updated_before=${afterM4}`)
    expect(pages.flatMap((page) => page.keys)).toEqual(['m4', 'm3', 'm2', 'm1'])
    expect(pages[0]).toMatchObject({ estimate: true })
    expect(pages.at(-1)).toEqual({ keys: [], total: 4, estimate: undefined, next: null })
  })

  it('counts exactly, and ranks every match, when they fit in the window', async () => {
    const [page] = await walk(client, '"harbour news"', 10)
    expect(page).toMatchObject({ keys: ['m7', 'm4', 'm1'], total: 3, estimate: undefined, next: null })
  })

  it('finds the newest matches through the index of words when they are few among the recent articles, with an exact total', async () => {
    const pages = await walk(sparse, 'harbour', 10)
    expect(pages).toEqual([{ keys: ['s4', 's3', 's2', 's1'], total: 4, estimate: undefined, next: null }])
    const first = await walk(sparse, 'harbour', 2)
    expect(first[0]).toMatchObject({ keys: ['s4', 's3'], total: 4, estimate: undefined, next: 2 })
    expect(first.flatMap((page) => page.keys)).toEqual(['s4', 's3', 's2', 's1'])
  })

  it('finds them through the index of words too when the newest article matches but the walk falls short', async () => {
    const pages = await walk(fresh, 'harbour', 10)
    // The window is f4, f3, f2 (f3 and f2 in their headlines, f4 in its body); f1 follows.
    expect(pages).toEqual([{ keys: ['f3', 'f2', 'f4', 'f1'], total: 4, estimate: undefined, next: null }])
  })
})
