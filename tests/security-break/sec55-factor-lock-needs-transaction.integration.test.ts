import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { lockMembersFactors } from '../../lib/auth/recovery-codes.ts'
import { db } from '../../lib/db/client.ts'
import { tenantDb } from '../../lib/tenancy/tenant-db.ts'
import { createTestTenant } from '../support/fixtures.ts'

// sec55: lockMembersFactors takes pg_advisory_xact_lock, which lasts until the transaction ends.
// Given the pool (db, tenantDb(...)) instead of a transaction's client, its statement is its own
// transaction: the lock is gone before the caller's next statement, and whatever it meant to
// serialise runs unserialised, silently. That call must be refused, not take a lock nobody holds.

type Transaction = Parameters<typeof lockMembersFactors>[0]

/** Whether another connection can take the member's factor lock right now (then nobody holds it). */
async function lockIsFree(userId: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL })
  await client.connect()
  try {
    const { rows } = await client.query<{ free: boolean }>('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS free', [`second factors:${userId}`])
    if (rows[0]!.free) await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [`second factors:${userId}`])
    return rows[0]!.free
  } finally {
    await client.end()
  }
}

describe('the member\'s factor lock', () => {
  it('is refused outside a transaction (the pool), where it would be released at once', async () => {
    const newsroom = await createTestTenant()
    const userId = newsroom.users.writer.id
    // @ts-expect-error: the pool is not a transaction's client, and the type says so.
    expect(() => lockMembersFactors(tenantDb(newsroom.tenant.id), userId).catch(() => undefined)).not.toThrow()
    // @ts-expect-error: nor is the system client.
    expect(() => lockMembersFactors(db, userId).catch(() => undefined)).not.toThrow()
    // Past the type (a cast, as a caller holding an untyped client might): refused at run time.
    await expect(lockMembersFactors(tenantDb(newsroom.tenant.id) as unknown as Transaction, userId)).rejects.toThrow(/transaction/)
    await expect(lockMembersFactors(db as unknown as Transaction, userId)).rejects.toThrow(/transaction/)
    expect(await lockIsFree(userId)).toBe(true)
  })

  it('inside a transaction, is held until it commits', async () => {
    const newsroom = await createTestTenant()
    const userId = newsroom.users.writer.id
    let heldInside = false
    await tenantDb(newsroom.tenant.id).$transaction(async (tx) => {
      await lockMembersFactors(tx, userId)
      heldInside = !(await lockIsFree(userId))
    })
    expect(heldInside).toBe(true)
    expect(await lockIsFree(userId)).toBe(true)
  })
})
