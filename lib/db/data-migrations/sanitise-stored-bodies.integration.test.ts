import { beforeAll, describe, expect, it } from 'vitest'
import { db } from '../client.ts'
import { createId } from '../../ids.ts'
import { createTestTenant, type TestTenant } from '../../../tests/support/fixtures.ts'
import { runDataMigrations, sanitiseBodiesMigration, sanitiseStoredBodies } from './sanitise-stored-bodies.ts'

// Bodies stored before sanitise-on-write (seeded here straight into the table, as the old
// write paths stored them) are cleaned by the backfill, each with one article.updated event.

let newsroom: TestTenant
let other: TestTenant
const hostile = (i: number) => `<p onclick="x">Story ${i}</p><script>alert(${i})</script><img src=x onerror=alert(1)>`
const clean = (i: number) => `<p>Story ${i}</p>`

async function seed(tenant: TestTenant, body: string | null) {
  const id = createId('art')
  await db.article.create({ data: { id, tenantId: tenant.tenant.id, headline: 'Seeded', body, authorId: tenant.users.editor.id } })
  return id
}

beforeAll(async () => {
  newsroom = await createTestTenant()
  other = await createTestTenant()
})

describe('the stored-body backfill', () => {
  it('sanitises hostile bodies across tenants in batches, one version and one article.updated each, and leaves clean ones alone', async () => {
    const hostileIds = [] as string[]
    for (let i = 0; i < 7; i++) hostileIds.push(await seed(i % 2 ? other : newsroom, hostile(i)))
    const cleanId = await seed(newsroom, '<p>Already fine</p>')
    const emptyId = await seed(newsroom, null)

    const result = await sanitiseStoredBodies({ batchSize: 3 })
    expect(result).toEqual({ scanned: 8, changed: 7 })

    for (const [i, id] of hostileIds.entries()) {
      const row = await db.article.findUniqueOrThrow({ where: { id } })
      expect(row).toMatchObject({ body: clean(i), version: 2 })
      const events = await db.event.findMany({ where: { tenantId: row.tenantId, kind: 'article.updated', data: { path: ['article_id'], equals: id } } })
      expect(events).toHaveLength(1)
      expect(events[0]!.data).toMatchObject({ article_id: id, body: clean(i), version: 2 })
    }
    expect(await db.article.findUniqueOrThrow({ where: { id: cleanId } })).toMatchObject({ body: '<p>Already fine</p>', version: 1 })
    expect(await db.article.findUniqueOrThrow({ where: { id: emptyId } })).toMatchObject({ body: null, version: 1 })
  })

  it('is safe to re-run: a second pass changes nothing and records no event', async () => {
    const eventsBefore = await db.event.count()
    expect(await sanitiseStoredBodies({ batchSize: 2 })).toEqual({ scanned: 8, changed: 0 })
    expect(await db.event.count()).toBe(eventsBefore)
  })

  it('runs once per database on start: recorded when done, skipped afterwards', async () => {
    const late = await seed(newsroom, hostile(99))
    const lines: string[] = []
    await runDataMigrations((line) => lines.push(line))
    expect(lines).toEqual([expect.stringContaining('1 of 9 stored bodies sanitised')])
    expect(await db.dataMigration.findUnique({ where: { name: sanitiseBodiesMigration } })).toMatchObject({ changed: 1 })
    expect((await db.article.findUniqueOrThrow({ where: { id: late } })).body).toBe(clean(99))

    await seed(newsroom, hostile(100))
    await runDataMigrations((line) => lines.push(line))
    expect(lines).toHaveLength(1)
  })
})
