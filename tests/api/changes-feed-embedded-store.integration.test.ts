import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setupBackstopMs } from '../support/time-limits.ts'
import { apiClient } from '../support/api-client.ts'
import { followFeed, mirrorWhileWriting } from '../support/changes-feed.ts'
import { startMigratedEmbeddedDatabase } from '../support/embedded-database.ts'
import { spawnApiServer, type SpawnedApiServer } from '../support/spawn-api-server.ts'

// The changes feed's SQL (lib/articles/changes-feed.ts) on the embedded store, PGlite, as
// `npm run dev` runs it: the same promise as on PostgreSQL (changes-feed.integration.test.ts).
// PGlite has one session, so transactions there never overlap and none can commit late.

let database: Awaited<ReturnType<typeof startMigratedEmbeddedDatabase>>
let server: SpawnedApiServer
let client: ReturnType<typeof apiClient>
let direct: pg.Client

beforeAll(async () => {
  database = await startMigratedEmbeddedDatabase()
  server = await spawnApiServer(database.url, { tenant: true, timeoutMs: 60_000 })
  client = apiClient(server.url, server.tenant!.token)
  direct = new pg.Client({ connectionString: database.url })
  await direct.connect()
}, setupBackstopMs)

afterAll(async () => {
  await direct?.end()
  await server?.stop()
  await database?.stop()
})

describe('the changes feed on the embedded store', () => {
  it('shows a change on the next page as soon as its writer is answered', async () => {
    const { cursor } = await followFeed(client, 'sort=updated_at&limit=50')
    const created = await client.post('/v1/articles', { headline: 'Seen at once' })
    expect(created.status, created.text).toBe(201)
    const next = await followFeed(client, 'sort=updated_at&limit=50', cursor)
    expect(next.rows.map((row) => row.article_id)).toEqual([created.body.article_id])
  })

  it('loses and repeats nothing while articles are written during the sync', async () => {
    const { mirror, repeated } = await mirrorWhileWriting(client, { writers: 2, articlesEach: 10 })
    const { rows } = await direct.query<{ id: string; version: number }>('SELECT id, version FROM articles WHERE tenant_id = $1', [server.tenant!.id])
    expect(mirror).toEqual(Object.fromEntries(rows.map((row) => [row.id, row.version])))
    expect(repeated).toEqual([])
  })
})
