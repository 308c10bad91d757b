import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setupBackstopMs } from '../support/time-limits.ts'
import { apiClient } from '../support/api-client.ts'
import { startMigratedEmbeddedDatabase } from '../support/embedded-database.ts'
import { spawnApiServer, type SpawnedApiServer } from '../support/spawn-api-server.ts'

// The kept article counts (the article_counts and article_tag_counts migrations' statement
// triggers) on the embedded store, PGlite, as `npm run dev` runs it: list totals follow creates,
// tag edits and transitions there too.

let database: Awaited<ReturnType<typeof startMigratedEmbeddedDatabase>>
let server: SpawnedApiServer
let client: ReturnType<typeof apiClient>

beforeAll(async () => {
  database = await startMigratedEmbeddedDatabase()
  server = await spawnApiServer(database.url, { tenant: true, timeoutMs: 60_000 })
  client = apiClient(server.url, server.tenant!.token)
}, setupBackstopMs)

afterAll(async () => {
  await server?.stop()
  await database?.stop()
})

describe('list totals on the embedded store', () => {
  it('count created, moved and published articles, by status and publication range', async () => {
    const total = async (query: string) => {
      const answer = await client.get(`/v1/articles?limit=1${query}`)
      expect(answer.status, answer.text).toBe(200)
      return answer.body.total as number
    }
    const ids: string[] = []
    for (let i = 0; i < 5; i++) {
      const created = await client.post('/v1/articles', { headline: `Embedded ${i}`, tags: i % 2 ? ['Local'] : ['local', 'weather'] })
      expect(created.status, created.text).toBe(201)
      ids.push(created.body.article_id)
    }
    expect(await total('')).toBe(5)
    expect(await total('&status=draft')).toBe(5)
    const beforePublishing = new Date(Date.now() - 1_000).toISOString()
    for (const id of ids.slice(0, 3)) {
      for (const to_state of ['in-review', 'approved', 'published']) {
        const moved = await client.post(`/v1/articles/${id}/transitions`, { to_state })
        expect(moved.status, moved.text).toBe(200)
      }
    }
    expect(await total('&status=draft')).toBe(2)
    expect(await total('&status=published')).toBe(3)
    expect(await total(`&published_after=${beforePublishing}`)).toBe(3)
    expect(await total(`&published_before=${beforePublishing}`)).toBe(0)
    expect(await total(`&published_before=${new Date(Date.now() + 60_000).toISOString()}&status=published`)).toBe(3)
    // By tag (article_tag_counts), in any spelling, alone and with a status.
    expect(await total('&tag=LOCAL')).toBe(5)
    expect(await total('&tag=weather')).toBe(3)
    expect(await total('&tag=local&status=published')).toBe(3)
    expect(await total('&tag=weather&status=draft')).toBe(1)
    const edited = await client.patch(`/v1/articles/${ids[4]}`, { tags: ['sport'] })
    expect(edited.status, edited.text).toBe(200)
    expect(await total('&tag=local')).toBe(4)
    expect(await total('&tag=Sport&status=draft')).toBe(1)
  })
})
