import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import pg from 'pg'
import { apiClient } from '../support/api-client.ts'
import { startApiServer } from '../support/api-server.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// Searches are let in a few at a time per process (SEARCH_CONCURRENCY, lib/articles/search-articles.ts):
// a burst of them waits in order rather than crowding PostgreSQL, and every one is still answered
// as it would be alone.

let server: Awaited<ReturnType<typeof startApiServer>>
let newsroom: TestTenant
let client: ReturnType<typeof apiClient>
const words = ['harbour', 'council', 'budget', 'river', 'school', 'transit', 'housing', 'festival']

beforeAll(async () => {
  server = await startApiServer()
  newsroom = await createTestTenant()
  client = apiClient(server.url, await newsroom.token(['articles:read', 'articles:write']))
  for (let index = 0; index < 120; index++) {
    const word = words[index % words.length]!
    const response = await client.post('/v1/articles', { headline: `The ${word} story ${index}`, lede: `A ${word} lede with plan ${index}.`, body: `<p>The ${word} plan, part ${index}, and the ${words[(index + 3) % words.length]} plan beside it.</p>`, tags: [word] })
    expect(response.status).toBe(201)
  }
})
afterEach(() => {
  delete process.env.SEARCH_CONCURRENCY
})
afterAll(() => server.close())

/** The most search statements PostgreSQL ran at once for this database while `burst` ran, sampled. */
async function mostSearchesAtOnce(burst: () => Promise<unknown>): Promise<number> {
  const observer = new pg.Client({ connectionString: process.env.DATABASE_URL })
  await observer.connect()
  let most = 0
  let running = true
  const sampling = (async () => {
    while (running) {
      const { rows } = await observer.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active' AND query LIKE '%websearch_to_tsquery%'",
      )
      most = Math.max(most, rows[0]!.n)
    }
  })()
  try {
    await burst()
  } finally {
    running = false
    await sampling
    await observer.end()
  }
  return most
}

describe('searches at once', () => {
  it('run at most SEARCH_CONCURRENCY at a time, and each is answered as it is alone', async () => {
    const paths = Array.from({ length: 24 }, (_, index) => `/v1/articles?q=${encodeURIComponent(`${words[index % words.length]} plan`)}&limit=${5 + index}`)
    const alone: unknown[] = []
    for (const path of paths) alone.push((await client.get(path)).body)

    process.env.SEARCH_CONCURRENCY = '2'
    let together: { status: number; body: unknown }[] = []
    // New queries each time (an updated_before that excludes nothing), so every one is searched for, not kept.
    const fresh = (path: string, round: number) => `${path}&updated_before=${new Date(Date.UTC(2100, 0, 1) + round).toISOString()}`
    const most = await mostSearchesAtOnce(async () => {
      for (let round = 0; round < 5; round++) {
        together = await Promise.all(paths.map(async (path) => {
          const { status, body } = await client.get(fresh(path, round))
          return { status, body }
        }))
      }
    })
    expect(together.map(({ status }) => status)).toEqual(paths.map(() => 200))
    expect(together.map(({ body }) => body)).toEqual(alone)
    expect(most).toBeGreaterThan(0)
    expect(most).toBeLessThanOrEqual(2)
  })
})
