import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import path from 'node:path'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { databaseUrl, testDatabaseUrl } from '../tests/support/test-env.ts'
import { knownMigrations, migrationLockKey, prepareSchemaOnStart, SchemaNotReadyError } from './schema-migrations.ts'

// The migration step of a rolling deploy, on empty databases of the test server: run as the
// operator runs it (`npm run db:migrate`, a child process), by two hosts at once, and an
// instance started with MIGRATE_ON_START=false before and after it.

const root = path.resolve(import.meta.dirname, '..')
const created: string[] = []

async function admin<T>(work: (client: pg.Client) => Promise<T>, url = testDatabaseUrl): Promise<T> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end()
  }
}

async function emptyDatabase(): Promise<string> {
  const name = `newsroom_migrate_${randomBytes(5).toString('hex')}`
  await admin((client) => client.query(`CREATE DATABASE ${name}`))
  created.push(name)
  return databaseUrl(name)
}

afterAll(async () => {
  for (const name of created) await admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
})

type Step = { exited: Promise<number | null>; output: () => string }

function migrationStep(url: string): Step {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'scripts/db-migrate.ts')], { cwd: root, env: { ...process.env, DATABASE_URL: url }, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  return { exited: new Promise((resolve) => child.on('exit', resolve)), output: () => output }
}

async function appliedMigrations(url: string): Promise<string[]> {
  return admin(async (client) => {
    const exists = await client.query(`SELECT to_regclass('_prisma_migrations') AS found`)
    if (!exists.rows[0].found) return []
    const rows = await client.query<{ migration_name: string }>('SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL ORDER BY migration_name')
    return rows.rows.map((row) => row.migration_name)
  }, url)
}

async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe('the migration step', () => {
  it('waits while another host holds the migration lock, then migrates', async () => {
    const url = await emptyDatabase()
    const otherHost = new pg.Client({ connectionString: url })
    await otherHost.connect()
    await otherHost.query('SELECT pg_advisory_lock($1::bigint)', [migrationLockKey])
    const step = migrationStep(url)
    try {
      await until(() => step.output().includes('Another host is running the migration step; waiting'), 60_000)
      // It waits: nothing is applied while the other host holds the lock.
      await new Promise((resolve) => setTimeout(resolve, 1_000))
      expect(await appliedMigrations(url)).toEqual([])
    } finally {
      await otherHost.end()
    }
    expect(await step.exited).toBe(0)
    expect(step.output()).toContain('Migration step done')
    expect(await appliedMigrations(url)).toEqual(knownMigrations())
  }, 180_000)

  it('run by two hosts at the same moment, applies each migration once and both succeed', async () => {
    const url = await emptyDatabase()
    const [first, second] = [migrationStep(url), migrationStep(url)]
    expect([await first.exited, await second.exited]).toEqual([0, 0])
    const rows = await admin((client) => client.query<{ migration_name: string; n: number }>('SELECT migration_name, count(*)::int AS n FROM _prisma_migrations GROUP BY migration_name ORDER BY migration_name'), url)
    expect(rows.rows.map((row) => row.migration_name)).toEqual(knownMigrations())
    expect(rows.rows.every((row) => row.n === 1)).toBe(true)
  }, 180_000)
})

describe('an instance with MIGRATE_ON_START=false', () => {
  it('refuses to start on a database the migration step has not migrated, and changes nothing there', async () => {
    const url = await emptyDatabase()
    const refusal = await prepareSchemaOnStart(url, { env: { MIGRATE_ON_START: 'false' } }).catch((error: unknown) => error)
    expect(refusal).toBeInstanceOf(SchemaNotReadyError)
    expect((refusal as Error).message).toContain(`lacks ${knownMigrations().length} migration(s)`)
    expect((refusal as Error).message).toContain('npm run db:migrate')
    expect(await appliedMigrations(url)).toEqual([])
  })

  it('starts on a migrated database without migrating it', async () => {
    // This file's database is the migrated template's copy.
    expect(await prepareSchemaOnStart(process.env.DATABASE_URL!, { env: { MIGRATE_ON_START: 'false' } })).toBe('checked')
  })
})
