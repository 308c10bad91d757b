import { beforeAll, describe, expect, it } from 'vitest'
import { db } from '../../lib/db/client.ts'
import { createId } from '../../lib/ids.ts'
import { tenantSql } from '../../lib/tenancy/tenant-sql.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// tenantSql's mappedRows keeps only what its mapper makes of each row, made as the row is read
// (a cold list page renders each article's record so, issue 50). The mapped rows are the read's
// rows in order, prepared or not, and a mapper that fails fails the read, not the connection.

let newsroom: TestTenant

beforeAll(async () => {
  newsroom = await createTestTenant()
  await db.article.createMany({
    data: Array.from({ length: 12 }, (_, i) => ({ id: createId('art'), tenantId: newsroom.tenant.id, headline: `Mapped ${String(i).padStart(2, '0')}`, authorId: newsroom.users.writer.id })),
  })
})

const text = 'SELECT id, headline FROM articles WHERE tenant_id = $1 AND headline LIKE $2 ORDER BY headline'

describe('tenantSql mappedRows', () => {
  it('gives each row mapped, in order, prepared, generic or not', async () => {
    const sql = tenantSql(newsroom.tenant.id)
    const plain = await sql.rows<{ id: string; headline: string }>(text, ['Mapped %'])
    expect(plain).toHaveLength(12)
    for (const options of [{}, { prepare: true }, { generic: true }, { prepare: true }]) {
      let calls = 0
      const mapped = await sql.mappedRows(text, ['Mapped %'], options, (row: { id: string; headline: string }) => {
        calls++
        return { shown: row.headline.toUpperCase() }
      })
      expect(mapped).toEqual(plain.map((row) => ({ shown: row.headline.toUpperCase() })))
      expect(calls).toBe(12)
    }
  })

  it('fails the read with the error of a mapper that throws, and the next read runs', async () => {
    const sql = tenantSql(newsroom.tenant.id)
    for (const options of [{ prepare: true }, {}]) {
      let calls = 0
      const failing = sql.mappedRows(text, ['Mapped %'], options, (row: { headline: string }) => {
        if (++calls === 3) throw new Error('no such record')
        return { shown: row.headline }
      })
      await expect(failing).rejects.toThrow('no such record')
      await expect(sql.mappedRows(text, ['Mapped 0%'], options, (row: { headline: string }) => ({ shown: row.headline }))).resolves.toHaveLength(10)
    }
  })
})
