import { afterAll, describe, expect, it } from 'vitest'
import { db, sqlPool } from '../../lib/db/client.ts'
import { ensureChangeOrderIndex } from '../../lib/db/data-migrations/change-order-index.ts'

// The changes feed's index on a big archive is built by the server while it serves (the
// change_sequence migration builds it only up to 250,000 articles): once, and again after a
// build that was cut short left it invalid.

const validity = async () =>
  (await sqlPool.query<{ valid: boolean | null }>(`SELECT (SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass('articles_change_order_idx')) AS valid`)).rows[0]!.valid

afterAll(async () => {
  await db.$disconnect()
})

describe('the changes feed index', () => {
  it('is left alone when it is there, built when it is missing, and built again when a build left it invalid', async () => {
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
})
