import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setupBackstopMs } from '../support/time-limits.ts'
import { apiClient } from '../support/api-client.ts'
import { startMigratedEmbeddedDatabase } from '../support/embedded-database.ts'
import { spawnApiServer, type SpawnedApiServer } from '../support/spawn-api-server.ts'
import { createSnippetCases, expectSnippetsOfWholeText } from '../support/snippet-cases.ts'

// Search's SQL (lib/articles/search-articles.ts) on the embedded store, PGlite, as `npm run dev`
// runs it: the same matches, ranking and snippets as on PostgreSQL (search-articles.integration.test.ts).

let database: Awaited<ReturnType<typeof startMigratedEmbeddedDatabase>>
let server: SpawnedApiServer
let client: ReturnType<typeof apiClient>
const ids: Record<string, string> = {}

beforeAll(async () => {
  database = await startMigratedEmbeddedDatabase()
  // A rank window of 3, so the few articles here take the window's paths too (search-rank-window.integration.test.ts on PostgreSQL).
  server = await spawnApiServer(database.url, { tenant: true, timeoutMs: 60_000, env: { SEARCH_RANK_WINDOW: '3' } })
  client = apiClient(server.url, server.tenant!.token)
  for (const [key, article] of Object.entries({
    headline: { headline: 'Riverside plan approved by council', body: '<p>A long debate ended.</p>' },
    lede: { headline: 'Budget row', lede: 'The riverside plan costs more than promised.' },
    scattered: { headline: 'Evening briefing', body: '<p>The riverside was mentioned; a plan follows later.</p>' },
    unrelated: { headline: 'Harbour opening', body: '<p>Boats arrive.</p>' },
  })) {
    const answer = await client.post('/v1/articles', article)
    expect(answer.status, answer.text).toBe(201)
    ids[key] = answer.body.article_id
  }
}, setupBackstopMs)

afterAll(async () => {
  await server?.stop()
  await database?.stop()
})

describe('search on the embedded store', () => {
  it('ranks, counts, matches phrases and highlights as on PostgreSQL', async () => {
    const keyOf = (id: string) => Object.entries(ids).find(([, value]) => value === id)?.[0]
    const words = await client.get(`/v1/articles?q=${encodeURIComponent('riverside plan')}`)
    expect(words.status, words.text).toBe(200)
    expect(words.body.items.map((item: { article_id: string }) => keyOf(item.article_id))).toEqual(['headline', 'lede', 'scattered'])
    expect(words.body.total).toBe(3)
    expect(words.body.items[1].match.snippet).toContain('<mark>riverside</mark> <mark>plan</mark>')

    const phrase = await client.get(`/v1/articles?q=${encodeURIComponent('"riverside plan"')}`)
    expect(phrase.body.items.map((item: { article_id: string }) => keyOf(item.article_id)).sort()).toEqual(['headline', 'lede'])
    expect(phrase.body.total).toBe(2)
    const listed = await client.get(`/v1/articles?q=${encodeURIComponent('"riverside plan"')}&sort=published_at`)
    expect(listed.body.total).toBe(2)
  })

  it('walks the newest matches, ranks them, estimates the total and pages across the window as on PostgreSQL', async () => {
    const created: string[] = []
    // Oldest first: the list order is h5, h4, h3, h2, h1; h4 has the word in its headline.
    for (let i = 1; i <= 5; i++) {
      const answer = await client.post('/v1/articles', i === 4 ? { headline: `Lighthouse news ${i}` } : { headline: `Other ${i}`, body: `<p>By the lighthouse, item ${i}.</p>` })
      expect(answer.status, answer.text).toBe(201)
      created.push(answer.body.article_id)
    }
    const keyOf = (id: string) => `h${created.indexOf(id) + 1}`
    const keys: string[] = []
    let first: any
    for (let offset: number | null = 0; offset !== null; ) {
      const page: { status: number; text: string; body: any } = await client.get(`/v1/articles?q=lighthouse&limit=2&offset=${offset}`)
      expect(page.status, page.text).toBe(200)
      first ??= page.body
      keys.push(...page.body.items.map((item: { article_id: string }) => keyOf(item.article_id)))
      offset = page.body.next_offset
    }
    expect(keys).toEqual(['h4', 'h5', 'h3', 'h2', 'h1'])
    expect(first.total_is_estimate).toBe(true)
  })

  it('makes each snippet of the whole lede and body text, however it finds it, as on PostgreSQL', async () => {
    await createSnippetCases((article) => client.post('/v1/articles', article))
    // PGlite serves one connection at a time: this one asks between the API's requests.
    const direct = new pg.Client({ connectionString: database.url })
    await direct.connect()
    try {
      await expectSnippetsOfWholeText((path) => client.get(path), (text, values) => direct.query(text, values), server.tenant!.id)
    } finally {
      await direct.end()
    }
  })
})
