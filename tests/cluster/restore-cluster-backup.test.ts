import { execFileSync } from 'node:child_process'
import { appendFileSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { archiveNow, restoreToTime } from '../../scripts/backup.ts'
import { clusterLayout } from '../../scripts/cluster-layout.ts'
import { clusterBackups } from '../../scripts/cluster.ts'

// Found by the issue-49 tester: docs/deploy.md's restore runbook applied to the backups
// `npm run cluster` takes (a Patroni leader with a synchronous replica), not to a lone initdb
// primary as tests/backup does. The restored copy must take writes: the runbook's step 6 serves
// from it, or exports a newsroom from it (the export records an audit entry, a write).

const layout = clusterLayout()
const asRoot = process.getuid?.() === 0
const dir = mkdtempSync(path.join(tmpdir(), 'newsroom-cluster-restore-'))
const restoredData = path.join(dir, 'restored')
// Within the cluster's port range, unused by its processes (cluster-layout.ts).
const restoredPort = layout.base + 95
const restoredUrl = `postgresql://postgres@127.0.0.1:${restoredPort}/newsroom`

function pgBin(tool: string): string {
  const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a))
  return `/usr/lib/postgresql/${versions[0]}/bin/${tool}`
}
const owner = () => ({ uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })), gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })) })
function pgTool(tool: string, args: string[]): string {
  const [command, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', pgBin(tool), ...args]] : [pgBin(tool), args]
  return execFileSync(command, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url, query_timeout: 15_000 })
  await client.connect()
  try {
    return (await client.query<T>(sql, params)).rows
  } finally {
    await client.end()
  }
}

afterAll(() => {
  if (existsSync(path.join(restoredData, 'postmaster.pid'))) {
    try {
      pgTool('pg_ctl', ['-D', restoredData, '-m', 'immediate', '-w', 'stop'])
    } catch {}
  }
  rmSync(dir, { recursive: true, force: true })
})

describe("the restore runbook on the cluster's own backups", () => {
  it('gives a promoted copy as of the target that takes writes', async () => {
    const writes = layout.appEnv.DATABASE_URL!
    await query(writes, `CREATE TABLE IF NOT EXISTS restore_probe (id serial PRIMARY KEY, label text NOT NULL)`)
    await query(writes, `INSERT INTO restore_probe (label) VALUES ('before')`)
    const target = (await query<{ target: string }>(writes, 'SELECT clock_timestamp()::text AS target'))[0]!.target
    await new Promise((resolve) => setTimeout(resolve, 1_100))
    await query(writes, `INSERT INTO restore_probe (label) VALUES ('after')`)
    // Step 2: the WAL up to the target reaches the repository.
    archiveNow(clusterBackups())

    // Step 3: restore into a fresh, empty data directory; step 4: its own port, and start it.
    if (asRoot) chownSync(dir, owner().uid, owner().gid)
    mkdirSync(restoredData, { mode: 0o700 })
    if (asRoot) chownSync(restoredData, owner().uid, owner().gid)
    restoreToTime(clusterBackups(), restoredData, target)
    appendFileSync(path.join(restoredData, 'postgresql.conf'), `port = ${restoredPort}\n`)
    pgTool('pg_ctl', ['-D', restoredData, '-l', path.join(dir, 'restored.log'), '-w', '-t', '120', 'start'])
    for (let i = 0; i < 600; i++) {
      if (!(await query<{ recovering: boolean }>(restoredUrl, 'SELECT pg_is_in_recovery() AS recovering'))[0]!.recovering) break
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect((await query<{ label: string }>(restoredUrl, 'SELECT label FROM restore_probe ORDER BY id')).map((row) => row.label)).toEqual(['before'])

    // Step 6: the copy serves (or is exported from): a write commits, rather than waiting for
    // the synchronous standby the cluster's leader had (the restored copy has none).
    await expect(query(restoredUrl, `INSERT INTO restore_probe (label) VALUES ('on the restored copy')`)).resolves.toBeDefined()
  }, 240_000)
})
