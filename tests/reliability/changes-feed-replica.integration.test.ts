import { readFileSync } from 'node:fs'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setupBackstopMs } from '../support/time-limits.ts'
import { startPrivatePostgres, startPrivateReplica, type PrivatePostgres } from '../support/private-postgres.ts'

// The changes feed reads from the streaming replica when it has caught up (lib/db/read-routing.ts).
// There its horizon (lib/articles/changes-feed.ts) must hold back, as on the primary, every
// change behind a primary transaction still open, even one that has taken its id without
// writing anything yet, so no cursor handed out from the replica passes a change that commits
// late. A private primary and hot standby of the test's own, with the change_sequence migration
// applied to a bare articles table.

const migration = readFileSync(new URL('../../prisma/migrations/20261126073000_change_sequence/migration.sql', import.meta.url), 'utf8')

let primary: PrivatePostgres
let replica: Awaited<ReturnType<typeof startPrivateReplica>>
let onPrimary: pg.Client
let onReplica: pg.Client

beforeAll(async () => {
  primary = await startPrivatePostgres()
  onPrimary = new pg.Client({ connectionString: primary.url })
  await onPrimary.connect()
  await onPrimary.query('CREATE TABLE articles (id text PRIMARY KEY, tenant_id text NOT NULL, version int NOT NULL DEFAULT 1, updated_at timestamptz NOT NULL DEFAULT now())')
  await onPrimary.query(migration)
  replica = await startPrivateReplica(primary)
  onReplica = new pg.Client({ connectionString: replica.url })
  await onReplica.connect()
}, setupBackstopMs)

afterAll(async () => {
  await onReplica?.end().catch(() => undefined)
  await onPrimary?.end().catch(() => undefined)
  await replica?.destroy()
  await primary?.destroy()
})

/** Waits (bounded) until the replica has replayed everything the primary has written so far. */
async function replayed(): Promise<void> {
  const { rows } = await onPrimary.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')
  for (let i = 0; i < 400; i++) {
    const caught = await onReplica.query<{ done: boolean }>('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done', [rows[0]!.lsn])
    if (caught.rows[0]!.done) return
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error('The replica did not replay the primary’s WAL')
}

const feed = async () => (await onReplica.query<{ id: string }>(`SELECT id FROM articles WHERE change_xid < articles_change_horizon() ORDER BY change_xid, updated_at, id`)).rows.map((row) => Number(row.id))
const visible = async () => (await onReplica.query<{ id: string }>('SELECT id FROM articles ORDER BY id')).rows.map((row) => Number(row.id))
const write = (client: pg.Client, n: number) => client.query(`INSERT INTO articles (id, tenant_id) VALUES ($1, 'ten_1')`, [String(n)])

describe('the changes feed on a hot standby', () => {
  it('holds back changes committed after a primary transaction that is still open, and lists that one first once it commits', async () => {
    expect((await onReplica.query('SELECT pg_is_in_recovery() AS standby')).rows[0].standby).toBe(true)
    const late = new pg.Client({ connectionString: primary.url })
    await late.connect()
    try {
      await late.query('BEGIN')
      // Its id is taken now; it writes nothing yet, so the replica has seen no WAL of it.
      await late.query('SELECT pg_current_xact_id()')
      await write(onPrimary, 2)
      await replayed()
      expect(await visible()).toEqual([2])
      expect(await feed()).toEqual([])

      await write(late, 1)
      await write(onPrimary, 3)
      await replayed()
      expect(await feed()).toEqual([])
      await late.query('COMMIT')
    } finally {
      await late.end()
    }
    await replayed()
    expect(await feed()).toEqual([1, 2, 3])
  })

  it('lists a change once it is replayed when no transaction is open', async () => {
    await write(onPrimary, 4)
    await replayed()
    expect(await feed()).toEqual([1, 2, 3, 4])
  })
})
