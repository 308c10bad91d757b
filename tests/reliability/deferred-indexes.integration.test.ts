import { afterAll, describe, expect, it } from 'vitest'
import { db, sqlPool } from '../../lib/db/client.ts'
import { deferredIndexes, ensureChangeOrderIndex, ensureDeferredIndex } from '../../lib/db/data-migrations/deferred-indexes.ts'

// The changes feed's index on a big archive is built by the server while it serves (the
// change_sequence migration builds it only up to 250,000 articles): once, and again after a
// build that was cut short left it invalid.

const validity = async () =>
  (await sqlPool.query<{ valid: boolean | null }>(`SELECT (SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass('articles_change_order_idx')) AS valid`)).rows[0]!.valid

afterAll(async () => {
  await db.$disconnect()
})

describe('the indexes a migration leaves to the server on a big archive', () => {
  it('(the changes feed index) are left alone when there, built when missing, and built again when a build left them invalid', async () => {
    expect(await validity()).toBe(true)
    expect(await ensureChangeOrderIndex()).toBe(false)

    await sqlPool.query('DROP INDEX articles_change_order_idx')
    expect(await validity()).toBeNull()
    let reported = 0
    expect(await ensureChangeOrderIndex(() => reported++)).toBe(true)
    expect(reported).toBe(1)
    expect(await validity()).toBe(true)

    // As a CREATE INDEX CONCURRENTLY that was interrupted leaves it.
    await sqlPool.query(`UPDATE pg_index SET indisvalid = false WHERE indexrelid = 'articles_change_order_idx'::regclass`)
    expect(await ensureChangeOrderIndex()).toBe(true)
    expect(await validity()).toBe(true)
    expect(await ensureChangeOrderIndex()).toBe(false)
  })
  it('includes the slug index, which the content API reads an article by, built the same way', async () => {
    const slugIndex = deferredIndexes.find((index) => index.name === 'articles_slug_idx')!
    const valid = async () => (await sqlPool.query<{ valid: boolean | null }>(`SELECT (SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass('articles_slug_idx')) AS valid`)).rows[0]!.valid
    expect(await valid()).toBe(true)
    await sqlPool.query('DROP INDEX articles_slug_idx')
    expect(await ensureDeferredIndex(slugIndex)).toBe(true)
    expect(await valid()).toBe(true)
  })
})
