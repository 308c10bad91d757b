import { beforeEach, describe, expect, it } from 'vitest'
import { recordBodyBackfill } from '../../bench/record-body-backfill.ts'
import { db } from '../../lib/db/client.ts'
import { runDataMigrations, sanitiseBodiesMigration } from '../../lib/db/data-migrations/sanitise-stored-bodies.ts'
import { createId } from '../../lib/ids.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// The bench's database is made by `prisma migrate deploy` and its seed, not db:migrate: unless
// it records the body backfill, the measured service runs it while the rows are measured.

let newsroom: TestTenant

async function store(body: string) {
  // Straight into the table, as the bench's seed writes its articles.
  await db.article.create({ data: { id: createId('art'), tenantId: newsroom.tenant.id, headline: 'Seeded', body, authorId: newsroom.users.editor.id } })
}

beforeEach(async () => {
  newsroom = await createTestTenant()
  await db.dataMigration.deleteMany({ where: { name: sanitiseBodiesMigration } })
  await db.article.deleteMany({})
})

describe('the bench records the body backfill', () => {
  it('as done when the seeded bodies are clean, so the service finds nothing to run', async () => {
    for (let i = 0; i < 5; i++) await store(`<p>Story ${i}</p>`)
    expect(await recordBodyBackfill(process.env.DATABASE_URL!)).toBe('recorded')
    expect(await db.dataMigration.findUnique({ where: { name: sanitiseBodiesMigration } })).toMatchObject({ changed: 0 })
    expect(await runDataMigrations(() => undefined)).toBeNull()
  })

  it('not when a seeded body needs sanitising: the backfill still runs', async () => {
    await store('<p>Story</p>')
    await store('<p onclick="steal()">Story</p><script>alert(1)</script>')
    expect(await recordBodyBackfill(process.env.DATABASE_URL!)).toBe('bodies need it')
    expect(await db.dataMigration.findUnique({ where: { name: sanitiseBodiesMigration } })).toBeNull()
  })
})
