import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { db } from '../../lib/db/client.ts'
import { createId } from '../../lib/ids.ts'
import { sanitiseBodiesMigration } from '../../lib/db/data-migrations/sanitise-stored-bodies.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'
import { spawnApiServer, type SpawnedApiServer } from '../support/spawn-api-server.ts'

// The body backfill over an archive (1.1M bodies took 3.7 minutes) must not keep the server
// from listening: it runs in batches while the server serves, and what is served meanwhile
// is never a body stored before sanitise-on-write.

const hostile = (i: number) => `<p onclick="steal()">Story ${i}</p><script>alert(${i})</script>`
const clean = (i: number) => `<p>Story ${i}</p>`
const stored = 40

let newsroom: TestTenant
let token: string
let server: SpawnedApiServer | undefined
const ids: string[] = []

async function seedHostile(count: number, from: number): Promise<string[]> {
  const seeded: string[] = []
  for (let i = from; i < from + count; i++) {
    const id = createId('art')
    // Straight into the table, as the write paths before sanitise-on-write stored them.
    await db.article.create({ data: { id, tenantId: newsroom.tenant.id, headline: `Seeded ${i}`, body: hostile(i), authorId: newsroom.users.editor.id } })
    seeded.push(id)
  }
  return seeded
}

async function waitFor(condition: () => Promise<boolean>, what: string): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt++) {
    if (await condition()) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`${what} did not happen within 60 s`)
}

beforeAll(async () => {
  newsroom = await createTestTenant()
  token = await newsroom.token(['articles:read'])
  ids.push(...(await seedHostile(stored, 0)))
})

afterAll(async () => {
  await server?.stop()
})

describe('a data migration pending at start-up', () => {
  it('does not delay listening: the server answers, with every body sanitised, while the backfill is still running, and the backfill finishes', async () => {
    // Two bodies a batch with half a second between batches: the backfill takes at least ten seconds.
    server = await spawnApiServer(process.env.DATABASE_URL!, { env: { DATA_MIGRATION_BATCH_SIZE: '2', DATA_MIGRATION_PAUSE_MS: '500' } })
    const headers = { authorization: `Bearer ${token}` }
    const last = [...ids].sort().at(-1)!
    const index = ids.indexOf(last)

    const single = await fetch(`${server.url}/v1/articles/${last}`, { headers })
    expect(single.status).toBe(200)
    expect((await single.json()).body).toBe(clean(index))
    const list = await fetch(`${server.url}/v1/articles?limit=100`, { headers })
    const items = (await list.json()).items as { article_id: string; body: string }[]
    expect(items).toHaveLength(stored)
    for (const item of items) expect(item.body).toBe(clean(ids.indexOf(item.article_id)))

    // Those answers came while the backfill was still under way: the last row by id (the
    // backfill walks by id) is still stored as it was, and the run is not recorded yet.
    expect((await db.article.findUniqueOrThrow({ where: { id: last } })).body).toBe(hostile(index))
    expect(await db.dataMigration.findUnique({ where: { name: sanitiseBodiesMigration } })).toBeNull()

    await waitFor(async () => (await db.dataMigration.findUnique({ where: { name: sanitiseBodiesMigration } })) !== null, 'the backfill completing')
    for (const [i, id] of ids.entries()) expect(await db.article.findUniqueOrThrow({ where: { id } })).toMatchObject({ body: clean(i), version: 2 })
    expect(await db.dataMigration.findUniqueOrThrow({ where: { name: sanitiseBodiesMigration } })).toMatchObject({ changed: stored })
  }, 90_000)

  it('leaves the instance ready while it runs, and /readyz says how far it is', async () => {
    await db.dataMigration.delete({ where: { name: sanitiseBodiesMigration } })
    const more = await seedHostile(6, 100)
    process.env.DATA_MIGRATION_BATCH_SIZE = '2'
    process.env.DATA_MIGRATION_PAUSE_MS = '300'
    const { startDataMigrationsInBackground } = await import('../../lib/db/data-migrations/background-data-migrations.ts')
    const { checkReadiness } = await import('../../lib/ops/readiness.ts')
    const { toArticleRecord } = await import('../../lib/articles/article-record.ts')
    const run = startDataMigrationsInBackground()

    await waitFor(async () => (await checkReadiness()).data_migration?.scanned === 2, 'the first batch')
    const during = await checkReadiness()
    expect(during).toMatchObject({ ready: true, data_migration: { name: sanitiseBodiesMigration, state: 'running', scanned: 2, finished_at: null } })
    // Meanwhile a body still stored hostile is rendered clean.
    const pending = await db.article.findUniqueOrThrow({ where: { id: more.at(-1)! } })
    expect(pending.body).toBe(hostile(105))
    expect(toArticleRecord(pending).body).toBe(clean(105))

    await run
    const after = await checkReadiness()
    expect(after).toMatchObject({ ready: true, data_migration: { state: 'done', scanned: stored + 6, changed: 6, finished_at: expect.any(String) } })
    // Once it is done, bodies are served as stored: nothing stored is left to clean.
    const raw = { ...pending, body: '<p>stored</p><script>x</script>' }
    expect(toArticleRecord(raw).body).toBe(raw.body)
  }, 60_000)
})
