import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { db } from '../../lib/db/client.ts'
import { backupInfo, takeBackup } from '../../scripts/backup.ts'
import { clusterLayout } from '../../scripts/cluster-layout.ts'
import { clusterBackups, databaseLeader } from '../../scripts/cluster.ts'
import { apiClient } from '../support/api-client.ts'
import { createTestTenant, type TestTenant } from '../support/fixtures.ts'

// pgBackRest in `npm run cluster` (scripts/backup.ts, docs/deploy.md "Backups and restoring
// them"): the leader archives its WAL into the cluster's repository, `npm run cluster` took a
// full backup when it started, and an incremental taken now builds on it and reaches past a
// write made through HAProxy since. tests/backup restores such backups to a point in time.

const layout = clusterLayout()
const haproxy = `http://127.0.0.1:${layout.ports.haproxy}`
const backups = clusterBackups()

type Backup = { label: string; type: string; prior: string | null; lsn: { start: string; stop: string }; archive: { start: string; stop: string }; info: { size: number; delta: number } }
type Stanza = { name: string; status: { code: number; message: string }; backup: Backup[]; archive: { id: string; min: string | null; max: string | null }[] }

let newsroom: TestTenant
let token: string

beforeAll(async () => {
  newsroom = await createTestTenant({ plan: 'enterprise' })
  token = await newsroom.token(['articles:read', 'articles:write'], 'editor')
})

afterAll(() => db.$disconnect())

/** A WAL position ("0/3000060") as a number, to compare. */
const lsn = (text: string) => {
  const [high, low] = text.split('/')
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`)
}
const stanza = () => (backupInfo(backups) as Stanza[])[0]!

describe('pgBackRest in the cluster', () => {
  it('archives the leader’s WAL, holds the full backup taken at start, and takes an incremental on it that covers a new write', async () => {
    const before = stanza()
    expect(before.status).toMatchObject({ code: 0 })
    const full = before.backup.findLast((backup) => backup.type === 'full')
    expect(full, 'the full backup `npm run cluster` takes at start').toBeDefined()

    // The leader archives: every segment it has closed reached the repository, none failed.
    const leader = await databaseLeader()
    expect(leader).toBeDefined()
    const [archiver] = await db.$queryRaw<{ archived: bigint; failed: bigint; last: string | null }[]>`SELECT archived_count AS archived, failed_count AS failed, last_archived_wal AS last FROM pg_stat_archiver`
    expect(Number(archiver!.archived)).toBeGreaterThan(0)
    expect(before.archive[0]!.max).not.toBeNull()

    const created = await apiClient(haproxy, token).post('/v1/articles', { headline: 'Kept by the incremental' })
    expect(created.status).toBe(201)
    const [written] = await db.$queryRaw<{ position: string }[]>`SELECT pg_current_wal_lsn()::text AS position`

    takeBackup(backups, 'incr')

    const after = stanza()
    const incremental = after.backup.at(-1)!
    expect(incremental.type).toBe('incr')
    // Built on the last backup (the full one, or an incremental of it): it copies only what changed.
    expect(incremental.prior).toBe(before.backup.at(-1)!.label)
    expect(incremental.info.delta).toBeLessThan(full!.info.size)
    // It began after the write committed, so restoring it brings the article back; and the WAL
    // it needs to be consistent is in the repository.
    expect(lsn(incremental.lsn.start) >= lsn(written!.position)).toBe(true)
    expect(after.archive[0]!.max! >= incremental.archive.stop).toBe(true)
    const [archived] = await db.$queryRaw<{ failed: bigint }[]>`SELECT failed_count AS failed FROM pg_stat_archiver`
    expect(Number(archived!.failed)).toBe(Number(archiver!.failed))
  })
})
