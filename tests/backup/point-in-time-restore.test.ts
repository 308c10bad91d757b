import { execFileSync, spawn } from 'node:child_process'
import { appendFileSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { archiveNow, archiveSettings, backupInfo, createStanza, restoreToTime, takeBackup, writeBackupConfig, type BackupLayout } from '../../scripts/backup.ts'
import { ensureDebianPackages } from '../../scripts/debian-packages.ts'
import { runMigrationStep } from '../../scripts/migration-step.ts'
import { prepareSchemaOnStart } from '../../scripts/schema-migrations.ts'

// Backups proven by restoring one, as docs/deploy.md's runbook ("Restoring a backup to a point in
// time") does it: a PostgreSQL of its own (Debian's binaries, initdb, ports BACKUP_TEST_PORT_BASE
// +1 and +2, default 6801/6802) archiving its WAL into a pgBackRest repository of its own in a
// temporary directory; a full backup, writes, an incremental, more writes, a recorded moment,
// writes after it; then a restore to that moment into a fresh data directory, the service's data
// layer started on it, and every article, revision, event, key, audit entry and member compared
// with what the newsroom held at that moment: all of it there, nothing written after it.

const root = path.resolve(import.meta.dirname, '../..')
const base = Number(process.env.BACKUP_TEST_PORT_BASE ?? 6800)
const asRoot = process.getuid?.() === 0
const dir = mkdtempSync(path.join(tmpdir(), 'newsroom-backup-'))
const primaryData = path.join(dir, 'primary')
const restoredData = path.join(dir, 'restored')
const layout: BackupLayout = { stanza: 'newsroom', dir: path.join(dir, 'pgbackrest'), pgData: primaryData, pgPort: base + 1, pgSocketDir: dir }
const primaryUrl = `postgresql://postgres@127.0.0.1:${base + 1}/newsroom`
const restoredUrl = `postgresql://postgres@127.0.0.1:${base + 2}/newsroom`
const stateFile = path.join(dir, 'state.json')
const timings: Record<string, number> = {}

function pgBin(tool: string): string {
  const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a))
  return `/usr/lib/postgresql/${versions[0]}/bin/${tool}`
}

function owner() {
  return { uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })), gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })) }
}

/** A PostgreSQL tool, as the postgres user when the test runs as root (initdb refuses root). */
function pgTool(tool: string, args: string[]): string {
  const [command, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', pgBin(tool), ...args]] : [pgBin(tool), args]
  return execFileSync(command, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
}

function timed<T>(name: string, work: () => T): T {
  const started = performance.now()
  const value = work()
  timings[name] = Math.round(performance.now() - started)
  return value
}

/** tests/backup/newsroom-data-layer.ts in a process of its own on `url`: the service's data layer. */
function dataLayer(url: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'tests/backup/newsroom-data-layer.ts'), ...args], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: url, LOG_STREAM: 'stderr', LOG_LEVEL: 'error', REDIS_URL: '', DATABASE_REPLICA_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    child.on('exit', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`data layer ${args.join(' ')} exited ${code}: ${stderr}`))))
  })
}

type Snapshot = Record<'articles' | 'revisions' | 'events' | 'contentKeys' | 'auditEntries' | 'users', { id: string }[]>
const read = async (url: string) => JSON.parse(await dataLayer(url, ['read', stateFile])) as Snapshot

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url.replace(/\/newsroom$/, '/postgres') })
  await client.connect()
  try {
    return (await client.query<T>(sql)).rows
  } finally {
    await client.end()
  }
}

beforeAll(async () => {
  // Debian's: pgbackrest, and PostgreSQL's server binaries (postgresql, whose postgresql-common brings pg_ctlcluster).
  ensureDebianPackages([['pgbackrest', 'pgbackrest'], ['pg_ctlcluster', 'postgresql']])
  if (asRoot) chownSync(dir, owner().uid, owner().gid)
  pgTool('initdb', ['-D', primaryData, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8'])
  appendFileSync(path.join(primaryData, 'postgresql.conf'), [`port = ${base + 1}`, "listen_addresses = '127.0.0.1'", `unix_socket_directories = '${dir}'`, ...archiveSettings(layout), ''].join('\n'))
  writeBackupConfig(layout, asRoot ? owner() : undefined)
  pgTool('pg_ctl', ['-D', primaryData, '-l', path.join(dir, 'primary.log'), '-w', 'start'])
  await query(primaryUrl, 'CREATE DATABASE newsroom')
  // The release's migration step, as on any new database.
  await runMigrationStep({ ...process.env, DATABASE_URL: primaryUrl, LOG_STREAM: 'stderr' })
  createStanza(layout)
}, 300_000)

afterAll(() => {
  for (const data of [restoredData, primaryData]) {
    if (existsSync(path.join(data, 'postmaster.pid'))) {
      try {
        pgTool('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop'])
      } catch {}
    }
  }
  console.log(`backup and restore timings (ms): ${JSON.stringify(timings)}`)
  rmSync(dir, { recursive: true, force: true })
})

describe('a pgBackRest backup restored to a point in time', () => {
  it('holds everything committed before that point and nothing after it, and the service reads it', async () => {
    timed('full backup', () => takeBackup(layout, 'full'))
    await dataLayer(primaryUrl, ['write', '1', stateFile])
    timed('incremental backup', () => takeBackup(layout, 'incr'))
    await dataLayer(primaryUrl, ['write', '2', stateFile])

    // The moment to restore to: after batch 2 committed, before batch 3 starts.
    const expected = await read(primaryUrl)
    const target = (await query<{ target: string }>(primaryUrl, 'SELECT clock_timestamp()::text AS target'))[0]!.target
    await new Promise((resolve) => setTimeout(resolve, 1_100))
    await dataLayer(primaryUrl, ['write', '3', stateFile])
    const everything = await read(primaryUrl)
    // Batch 3 added articles, revisions, events, a key, audit entries, and revoked a key of batch 1.
    expect(everything.articles.length).toBe(expected.articles.length + 3)
    expect(everything.contentKeys.find((key) => key.id === expected.contentKeys[0]!.id)).toMatchObject({ revokedAt: expect.any(String) })
    timed('archive the last WAL segment', () => archiveNow(layout))

    const info = backupInfo(layout) as { backup: { type: string }[] }[]
    expect(info[0]!.backup.map((backup) => backup.type)).toEqual(['full', 'incr'])

    // The runbook: restore into a fresh data directory, give it its own port, start it.
    mkdirSync(restoredData, { mode: 0o700 })
    if (asRoot) chownSync(restoredData, owner().uid, owner().gid)
    timed('restore', () => restoreToTime(layout, restoredData, target))
    appendFileSync(path.join(restoredData, 'postgresql.conf'), `port = ${base + 2}\n`)
    const started = performance.now()
    pgTool('pg_ctl', ['-D', restoredData, '-l', path.join(dir, 'restored.log'), '-w', '-t', '120', 'start'])
    for (let i = 0; i < 600; i++) {
      const recovering = (await query<{ recovering: boolean }>(restoredUrl, 'SELECT pg_is_in_recovery() AS recovering'))[0]!.recovering
      if (!recovering) break
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    timings['recovery to the target and promotion'] = Math.round(performance.now() - started)

    // The service starts on it as an instance of a rolling deploy would: the schema is complete.
    expect(await prepareSchemaOnStart(restoredUrl, { env: { MIGRATE_ON_START: 'false' } })).toBe('checked')
    const restored = await read(restoredUrl)
    // Everything committed before the target, field by field (edits at their versions as of then, the key not yet revoked)…
    expect(restored).toEqual(expected)
    // …and nothing after it.
    for (const kind of Object.keys(everything) as (keyof Snapshot)[]) {
      const before = new Set(expected[kind].map((row) => row.id))
      const later = everything[kind].filter((row) => !before.has(row.id)).map((row) => row.id)
      if (kind !== 'users') expect(later.length, `${kind} written after the target`).toBeGreaterThan(0)
      expect(restored[kind].filter((row) => later.includes(row.id))).toEqual([])
    }

    // And the restored database takes writes of its own (promoted, not a read-only standby).
    const restoredState = path.join(dir, 'restored-state.json')
    const state = JSON.parse(readFileSync(stateFile, 'utf8')) as Record<string, unknown>
    writeFileSync(restoredState, JSON.stringify({ ...state, articles: expected.articles.map((row) => row.id), keys: expected.contentKeys.map((row) => row.id) }))
    await dataLayer(restoredUrl, ['write', '4', restoredState])
    expect((await read(restoredUrl)).articles.length).toBe(expected.articles.length + 3)
    writeFileSync(path.join(dir, 'timings.json'), JSON.stringify(timings))
  }, 600_000)
})
