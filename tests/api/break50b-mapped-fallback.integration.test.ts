import { describe, expect, it, vi } from 'vitest'
import * as routing from '../../lib/db/read-routing.ts'
import { listArticleRecords } from '../../lib/articles/list-articles.ts'
import { db } from '../../lib/db/client.ts'
import { createId } from '../../lib/ids.ts'
import { createTestTenant } from '../support/fixtures.ts'

// break50b: tenantSql.mappedRows maps rows "per attempt, so a replica's fallback starts afresh"
// (read-routing.ts: the replica is tried, and on a replica failure — 40001, a conflict with
// recovery, which cancels a read mid-stream — the primary answers with the same mapRow). The
// list page read with its total (list-articles.ts, pageWithTotal) keeps the total from the first
// row it is given (`listTotal ??= row.listTotal`) in a closure that outlives the attempt: after a
// fallback the page is the primary's rows with the replica's total, the two statements' snapshots
// the commit message says the page and its total now share.

vi.mock('../../lib/db/read-routing.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../lib/db/read-routing.ts')>()
  return { ...real, routedQuery: vi.fn(real.routedQuery) }
})

describe('a list page read with its total, when the replica fails mid-read and the primary answers', () => {
  it('has the total of the rows it shows', async () => {
    const newsroom = await createTestTenant()
    const tenantId = newsroom.tenant.id
    const article = () => ({ id: createId('art'), tenantId, headline: 'Story', authorId: newsroom.users.writer.id })
    await db.article.createMany({ data: Array.from({ length: 25 }, article) })

    const routed = vi.mocked(routing.routedQuery)
    const real = (await vi.importActual<typeof import('../../lib/db/read-routing.ts')>('../../lib/db/read-routing.ts')).routedQuery
    routed.mockImplementationOnce(async (tenant, text, values, preparedName, generic, mapRow) => {
      // What routedQuery does with a replica that is cancelled after its first row: the row is
      // mapped, the read fails with 40001, and the primary is asked with the same mapRow ...
      await real(tenant, text, values, preparedName, generic, (row) => {
        mapRow!(row)
        throw Object.assign(new Error('canceling statement due to conflict with recovery'), { code: '40001' })
      }).catch(() => undefined)
      // ... by which time a colleague's new article has committed on the primary.
      await db.article.create({ data: article() })
      return real(tenant, text, values, preparedName, generic, mapRow)
    })

    const page = await listArticleRecords(newsroom.actor('writer'), { limit: 10, offset: 0 })
    expect(routed).toHaveBeenCalled()
    expect(page.items).toHaveLength(10)
    expect(await db.article.count({ where: { tenantId } })).toBe(26)
    expect(page.total).toBe(26)
  })
})
