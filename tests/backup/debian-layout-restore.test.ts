import { execFileSync } from 'node:child_process'
import { appendFileSync, chownSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { archiveNow, archiveSettings, createStanza, restoreToTime, takeBackup, writeBackupConfig, type BackupLayout } from '../../scripts/backup.ts'

// Found by the issue-49 tester: the restore runbook of docs/deploy.md on the machine it is written
// for: Debian 12's packaged PostgreSQL (`/var/lib/postgresql/15/main`, as the guide's commands
// name it), whose configuration files live in /etc/postgresql/15/<cluster>, outside the data
// directory, so the backup does not carry them. tests/backup/point-in-time-restore.test.ts runs
// initdb, which puts them in the data directory, and does not see this. Needs root
// (pg_createcluster), as the operator has.

const base = Number(process.env.BACKUP_TEST_PORT_BASE ?? 6800) + 50
const asRoot = process.getuid?.() === 0
const cluster = `restore_${process.pid}`
const version = execFileSync('ls', ['/usr/lib/postgresql'], { encoding: 'utf8' }).trim().split('\n').sort((a, b) => Number(b) - Number(a))[0]!
const pgData = `/var/lib/postgresql/${version}/${cluster}`
const confDir = `/etc/postgresql/${version}/${cluster}`
const restoredData = `/var/lib/postgresql/${version}/${cluster}_restored`
const dir = mkdtempSync(path.join(tmpdir(), 'newsroom-debian-restore-'))
const layout: BackupLayout = { stanza: 'newsroom', dir: path.join(dir, 'pgbackrest'), pgData, pgPort: base + 1, pgSocketDir: '/var/run/postgresql' }
const primaryUrl = `postgresql://postgres@127.0.0.1:${base + 1}/postgres`
const restoredUrl = `postgresql://postgres@127.0.0.1:${base + 2}/postgres`
const owner = () => ({ uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })), gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })) })
const pgCtl = (args: string[]) => execFileSync('runuser', ['-u', 'postgres', '--', `/usr/lib/postgresql/${version}/bin/pg_ctl`, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query<T>(sql)).rows
  } finally {
    await client.end()
  }
}

beforeAll(() => {
  if (!asRoot) return
  chownSync(dir, owner().uid, owner().gid)
  execFileSync('pg_createcluster', [version, cluster, '-p', String(base + 1), '--', '--auth=trust'], { stdio: 'ignore' })
  // The guide's postgresql.conf lines, where Debian reads them (conf.d).
  writeFileSync(path.join(confDir, 'conf.d', 'archive.conf'), [...archiveSettings(layout), "listen_addresses = '127.0.0.1'", ''].join('\n'))
  writeBackupConfig(layout, owner())
  execFileSync('pg_ctlcluster', [version, cluster, 'start'])
  createStanza(layout)
}, 120_000)

afterAll(() => {
  if (!asRoot) return
  if (existsSync(path.join(restoredData, 'postmaster.pid'))) {
    try {
      pgCtl(['-D', restoredData, '-m', 'immediate', '-w', 'stop'])
    } catch {}
  }
  rmSync(restoredData, { recursive: true, force: true })
  try {
    execFileSync('pg_dropcluster', [version, cluster, '--stop'], { stdio: 'ignore' })
  } catch {}
  rmSync(dir, { recursive: true, force: true })
})

describe("the restore runbook on Debian's packaged PostgreSQL", () => {
  it.skipIf(!asRoot)('starts the restored copy with the steps docs/deploy.md gives', async () => {
    takeBackup(layout, 'full')
    // pgBackRest compares a backup's stop time with the target in whole seconds.
    await new Promise((resolve) => setTimeout(resolve, 1_100))
    await query(primaryUrl, `CREATE TABLE probe (label text); INSERT INTO probe VALUES ('before')`)
    const target = (await query<{ target: string }>(primaryUrl, 'SELECT clock_timestamp()::text AS target'))[0]!.target
    await new Promise((resolve) => setTimeout(resolve, 1_100))
    await query(primaryUrl, `INSERT INTO probe VALUES ('after')`)
    // Step 2.
    archiveNow(layout)
    // Step 3: a fresh, empty data directory owned by postgres, mode 700.
    mkdirSync(restoredData, { mode: 0o700 })
    chownSync(restoredData, owner().uid, owner().gid)
    restoreToTime(layout, restoredData, target)
    // Step 4, as docs/deploy.md writes it.
    runbookStep4()
    pgCtl(['-D', restoredData, '-l', path.join(dir, 'restored.log'), '-w', '-t', '60', 'start'])
    for (let i = 0; i < 300; i++) {
      if (!(await query<{ recovering: boolean }>(restoredUrl, 'SELECT pg_is_in_recovery() AS recovering'))[0]!.recovering) break
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect((await query<{ label: string }>(restoredUrl, 'SELECT label FROM probe')).map((row) => row.label)).toEqual(['before'])
  }, 240_000)
})

/** docs/deploy.md, "Restoring a backup to a point in time", step 4. */
function runbookStep4() {
  appendFileSync(path.join(restoredData, 'postgresql.conf'), `port = ${base + 2}\nsynchronous_standby_names = ''\n`)
  for (const file of ['pg_hba.conf', 'pg_ident.conf']) {
    copyFileSync(path.join(confDir, file), path.join(restoredData, file))
    chownSync(path.join(restoredData, file), owner().uid, owner().gid)
  }
}
