import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { ServiceUnavailableError } from '../../lib/errors.ts'
import { startPrivatePostgres, type PrivatePostgres } from '../support/private-postgres.ts'
import { stubEnv } from '../support/stub-env.ts'

// The retry rule for a database switch (lib/db/failover-retry.ts), against this file's own
// PostgreSQL so that it can be stopped or made read-only as a failover would: a transaction
// broken before its COMMIT runs again once a writable primary answers, and exactly once;
// past FAILOVER_RETRY_MS the caller gets a 503-kind error with Retry-After.

let cluster: PrivatePostgres
let sqlTransaction: typeof import('../../lib/db/sql-transaction.ts').sqlTransaction
let admin: () => pg.Client

beforeAll(async () => {
  cluster = await startPrivatePostgres()
  admin = () => new pg.Client({ connectionString: cluster.url })
  const setup = admin()
  await setup.connect()
  await setup.query('CREATE TABLE writes (id text PRIMARY KEY)')
  await setup.end()
  // The pool reads DATABASE_URL once, when the module loads.
  process.env.DATABASE_URL = cluster.url
  ;({ sqlTransaction } = await import('../../lib/db/sql-transaction.ts'))
}, 90_000)

afterAll(async () => {
  vi.unstubAllEnvs()
  await cluster?.destroy()
})

async function countOf(id: string): Promise<number> {
  const client = admin()
  await client.connect()
  try {
    return Number((await client.query('SELECT count(*) FROM writes WHERE id = $1', [id])).rows[0].count)
  } finally {
    await client.end()
  }
}

const write = (id: string) => sqlTransaction(async (tx) => tx.$executeRaw`INSERT INTO writes (id) VALUES (${id})`)

describe('a transaction across a database switch', () => {
  it('waits out a primary that is down for 2 s and commits once', async () => {
    await write('warm-up')
    await cluster.stop('immediate')
    const pending = write('during-outage')
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    await cluster.start()
    await expect(pending).resolves.toBe(1)
    expect(await countOf('during-outage')).toBe(1)
  }, 30_000)

  it('runs again when the write address reaches a read-only server (a demoted primary) until it is writable', async () => {
    const client = admin()
    await client.connect()
    await client.query(`ALTER DATABASE ${new URL(cluster.url).pathname.slice(1) || 'postgres'} SET default_transaction_read_only = on`)
    // Connections made from now on are read-only, as a standby's are.
    const pending = write('read-only-first')
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    await client.query(`ALTER DATABASE ${new URL(cluster.url).pathname.slice(1) || 'postgres'} SET default_transaction_read_only = off`)
    await client.end()
    await expect(pending).resolves.toBe(1)
    expect(await countOf('read-only-first')).toBe(1)
  }, 30_000)

  it('gives up after FAILOVER_RETRY_MS with a 503-kind error that says to retry', async () => {
    stubEnv({ FAILOVER_RETRY_MS: '1500' })
    await cluster.stop('immediate')
    try {
      const failure = await write('never').catch((error: unknown) => error)
      expect(failure).toBeInstanceOf(ServiceUnavailableError)
      expect((failure as ServiceUnavailableError).retryAfterSeconds).toBeGreaterThanOrEqual(1)
    } finally {
      await cluster.start()
    }
    expect(await countOf('never')).toBe(0)
  }, 30_000)
})
