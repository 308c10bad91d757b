import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errorResponse } from '../api/with-api.ts'
import { ServiceUnavailableError } from '../errors.ts'
import { sqlPool } from './client.ts'
import { sqlTransaction } from './sql-transaction.ts'
import { retryTransactionConflicts, transactionConflict } from './transaction-conflicts.ts'

beforeAll(async () => {
  await sqlPool.query('CREATE TABLE conflict_rows (id text PRIMARY KEY, writes int NOT NULL DEFAULT 0)')
  await sqlPool.query("INSERT INTO conflict_rows (id) VALUES ('a'), ('b')")
})
afterAll(() => sqlPool.query('DROP TABLE conflict_rows'))

/** Two transactions that each hold one row and then want the other's: PostgreSQL must roll one back. */
function lockBoth(first: string, second: string, meet: { arrived: number; bothHoldOne: Promise<void>; release: () => void }) {
  return sqlTransaction(async (tx) => {
    await tx.$executeRaw`UPDATE conflict_rows SET writes = writes + 1 WHERE id = ${first}`
    if (++meet.arrived === 2) meet.release()
    await meet.bothHoldOne
    await tx.$executeRaw`UPDATE conflict_rows SET writes = writes + 1 WHERE id = ${second}`
  })
}

describe('retryTransactionConflicts', () => {
  it('runs a transaction PostgreSQL rolled back for a deadlock again, and both rivals commit once', async () => {
    let release!: () => void
    const meet = { arrived: 0, bothHoldOne: new Promise<void>((resolve) => (release = resolve)), release: () => release() }
    let attempts = 0
    await Promise.all([
      retryTransactionConflicts(() => (attempts++, lockBoth('a', 'b', meet)), { what: 'test change' }),
      retryTransactionConflicts(() => (attempts++, lockBoth('b', 'a', meet)), { what: 'test change' }),
    ])
    // Each rival once, and the one PostgreSQL chose as the victim again (three attempts). On a
    // loaded machine the victim's retry can take its first row before the woken rival does and
    // meet it again: a second deadlock, settled the same way (four; seen at load 7).
    expect(attempts).toBeGreaterThanOrEqual(3)
    // Each row was written once by each rival: the rolled-back attempt left nothing.
    const { rows } = await sqlPool.query<{ id: string; writes: number }>('SELECT id, writes FROM conflict_rows ORDER BY id')
    expect(rows).toEqual([{ id: 'a', writes: 2 }, { id: 'b', writes: 2 }])
  })

  it('gives up after the bounded attempts with a 503 write_conflict and Retry-After, never the database error', async () => {
    const deadlock = Object.assign(new Error('deadlock detected'), { code: '40P01' })
    let attempts = 0
    const failure = await retryTransactionConflicts(
      async () => {
        attempts++
        throw deadlock
      },
      { what: 'bulk import', attempts: 3, baseDelayMs: 1 },
    ).catch((error: unknown) => error)
    expect(attempts).toBe(3)
    expect(failure).toBeInstanceOf(ServiceUnavailableError)
    expect(failure).toMatchObject({ code: 'write_conflict', status: 503, retryAfterSeconds: 1 })
    const answer = errorResponse(failure, 'req_test')
    expect(answer.status).toBe(503)
    expect(answer.headers.get('content-type')).toContain('application/problem+json')
    expect(answer.headers.get('retry-after')).toBe('1')
    expect(await answer.json()).toMatchObject({ code: 'write_conflict', detail: expect.stringContaining('nothing was stored') })
  })

  it('passes every other error through at once', async () => {
    let attempts = 0
    const unique = Object.assign(new Error('duplicate key value'), { code: '23505' })
    await expect(retryTransactionConflicts(async () => (attempts++, Promise.reject(unique)), { what: 'test change' })).rejects.toBe(unique)
    expect(attempts).toBe(1)
    expect(transactionConflict({ cause: { code: '40001' } })).toBe('a serialization failure')
  })
})
