/**
 * Integration test of the schema-engine stand-in (schema-engine.mjs): runs the
 * real Prisma CLI with PRISMA_SCHEMA_ENGINE_BINARY pointing at it, against
 * real PostgreSQL (TEST_DATABASE_URL, scratch databases created and dropped
 * here) and against an embedded PGlite served over TCP by pglite-socket.
 *
 *   npx vitest run tools/prisma-schema-engine
 */
import { spawn } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { PGlite } from '@electric-sql/pglite'
import { PGLiteSocketServer } from '@electric-sql/pglite-socket'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const here = path.dirname(fileURLToPath(import.meta.url))
const repoRoot = path.resolve(here, '../..')
const ENGINE = path.join(here, 'schema-engine.mjs')
const PRISMA_CLI = path.join(repoRoot, 'node_modules/prisma/build/index.js')
const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test'
const CLI_TIMEOUT_MS = 90_000
const TEST_TIMEOUT_MS = 120_000

// ---------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------

const stripAnsi = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '')

function urlForDatabase(database: string): string {
  const url = new URL(TEST_DATABASE_URL)
  url.pathname = `/${database}`
  return url.href
}

async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL })
  await client.connect()
  try {
    await client.query(sql)
  } finally {
    await client.end()
  }
}

/** Create a scratch database (name prefixed `se_`) and return its URL. */
async function createScratchDatabase(created: string[]): Promise<string> {
  const name = `se_it_${crypto.randomBytes(6).toString('hex')}`
  await adminQuery(`CREATE DATABASE "${name}"`)
  created.push(name)
  return urlForDatabase(name)
}

async function dropScratchDatabases(names: string[]): Promise<void> {
  for (const name of names) {
    await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => {})
  }
}

async function query<T extends pg.QueryResultRow = Record<string, unknown>>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query<T>(sql)).rows
  } finally {
    await client.end()
  }
}

async function tablesOf(url: string): Promise<string[]> {
  const rows = await query<{ tablename: string }>(url, `SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`)
  return rows.map((r) => r.tablename)
}

async function columnsOf(url: string, table: string): Promise<string[]> {
  const rows = await query<{ column_name: string }>(
    url,
    `SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = '${table}' ORDER BY ordinal_position`,
  )
  return rows.map((r) => r.column_name)
}

const SCHEMA_HEADER = `generator client {
  provider = "prisma-client"
  output   = "../gen"
}

datasource db {
  provider = "postgresql"
}
`

const MODELS_V1 = `
model User {
  id    Int    @id @default(autoincrement())
  email String @unique
  posts Post[]
}

model Post {
  id       Int    @id @default(autoincrement())
  title    String
  authorId Int
  author   User   @relation(fields: [authorId], references: [id])
}
`

const MODELS_V2 = MODELS_V1.replace('  email String @unique\n', '  email String @unique\n  name  String?\n')

/** A throw-away Prisma project: prisma.config.ts + prisma/schema.prisma, node_modules symlinked. */
function createProject(models: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'se-it-'))
  fs.mkdirSync(path.join(dir, 'prisma'))
  fs.symlinkSync(path.join(repoRoot, 'node_modules'), path.join(dir, 'node_modules'), 'dir')
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'se-it', private: true, type: 'module' }))
  fs.writeFileSync(
    path.join(dir, 'prisma.config.ts'),
    `import { defineConfig } from 'prisma/config'
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL!, shadowDatabaseUrl: process.env.SHADOW_DATABASE_URL },
})
`,
  )
  writeModels(dir, models)
  return dir
}

function writeModels(dir: string, models: string): void {
  fs.writeFileSync(path.join(dir, 'prisma/schema.prisma'), SCHEMA_HEADER + models)
}

function readMigration(dir: string, name: string | undefined): string {
  if (!name) throw new Error('migration directory missing')
  return fs.readFileSync(path.join(dir, 'prisma/migrations', name, 'migration.sql'), 'utf8')
}

function migrationDirs(dir: string): string[] {
  const base = path.join(dir, 'prisma/migrations')
  if (!fs.existsSync(base)) return []
  return fs
    .readdirSync(base, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()
}

interface CliResult {
  code: number | null
  output: string
}

/**
 * Run the real Prisma CLI (asynchronously: the PGlite test serves the
 * database from this very process, a blocking spawn would deadlock it).
 */
function prisma(cwd: string, args: string[], env: Record<string, string | undefined>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [PRISMA_CLI, ...args], {
      cwd,
      env: {
        ...process.env,
        PRISMA_SCHEMA_ENGINE_BINARY: ENGINE,
        CHECKPOINT_DISABLE: '1',
        PRISMA_HIDE_UPDATE_MESSAGE: '1',
        FORCE_COLOR: '0',
        NO_COLOR: '1',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (d) => (output += d))
    child.stderr.on('data', (d) => (output += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), CLI_TIMEOUT_MS)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, output: stripAnsi(output) })
    })
  })
}

function expectOk(result: CliResult): void {
  if (result.code !== 0) throw new Error(`prisma exited with ${result.code}:\n${result.output}`)
}

// ---------------------------------------------------------------------------
// PostgreSQL
// ---------------------------------------------------------------------------

describe('schema-engine stand-in against PostgreSQL', () => {
  const databases: string[] = []
  let project: string
  let devUrl: string

  beforeAll(async () => {
    project = createProject(MODELS_V1)
    devUrl = await createScratchDatabase(databases)
  }, TEST_TIMEOUT_MS)

  afterAll(async () => {
    await dropScratchDatabases(databases)
    if (project) fs.rmSync(project, { recursive: true, force: true })
    // No temporary shadow database may survive the CLI runs.
    const leftovers = await query<{ datname: string }>(
      TEST_DATABASE_URL,
      `SELECT datname FROM pg_database WHERE datname LIKE 'prisma\\_shadow\\_%'`,
    )
    expect(leftovers).toEqual([])
  }, TEST_TIMEOUT_MS)

  it(
    'migrate dev --name init creates and applies the first migration',
    async () => {
      const result = await prisma(project, ['migrate', 'dev', '--name', 'init'], { DATABASE_URL: devUrl })
      expectOk(result)
      expect(result.output).toContain('Your database is now in sync with your schema.')

      const dirs = migrationDirs(project)
      expect(dirs).toHaveLength(1)
      expect(dirs[0]).toMatch(/^\d{14}_init$/)
      const sql = readMigration(project, dirs[0])
      expect(sql).toContain('CREATE TABLE "User"')
      expect(sql).toContain('CREATE TABLE "Post"')
      expect(fs.readFileSync(path.join(project, 'prisma/migrations/migration_lock.toml'), 'utf8')).toContain(
        'provider = "postgresql"',
      )

      expect(await tablesOf(devUrl)).toEqual(['Post', 'User', '_prisma_migrations'])
      const applied = await query<{ migration_name: string; finished_at: Date | null }>(
        devUrl,
        'SELECT migration_name, finished_at FROM _prisma_migrations',
      )
      expect(applied.map((m) => m.migration_name)).toEqual(dirs)
      expect(applied[0]?.finished_at).toBeInstanceOf(Date)
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'migrate status reports the database as up to date',
    async () => {
      const result = await prisma(project, ['migrate', 'status'], { DATABASE_URL: devUrl })
      expectOk(result)
      expect(result.output).toContain('1 migration found in prisma/migrations')
      expect(result.output).toContain('Database schema is up to date!')
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'migrate dev --name add_field creates a second migration after a schema change',
    async () => {
      writeModels(project, MODELS_V2)
      const result = await prisma(project, ['migrate', 'dev', '--name', 'add_field'], { DATABASE_URL: devUrl })
      expectOk(result)

      const dirs = migrationDirs(project)
      expect(dirs).toHaveLength(2)
      expect(dirs[1]).toMatch(/_add_field$/)
      const sql = readMigration(project, dirs[1])
      expect(sql).toMatch(/ALTER TABLE "User" ADD COLUMN\s+"name" TEXT/)
      expect(await columnsOf(devUrl, 'User')).toEqual(['id', 'email', 'name'])

      const status = await prisma(project, ['migrate', 'status'], { DATABASE_URL: devUrl })
      expectOk(status)
      expect(status.output).toContain('2 migrations found in prisma/migrations')
      expect(status.output).toContain('Database schema is up to date!')
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'migrate deploy applies all migrations to another fresh database',
    async () => {
      const deployUrl = await createScratchDatabase(databases)
      const result = await prisma(project, ['migrate', 'deploy'], { DATABASE_URL: deployUrl })
      expectOk(result)
      expect(result.output).toContain('All migrations have been successfully applied.')

      expect(await tablesOf(deployUrl)).toEqual(['Post', 'User', '_prisma_migrations'])
      expect(await columnsOf(deployUrl, 'User')).toEqual(['id', 'email', 'name'])
      const applied = await query<{ migration_name: string }>(
        deployUrl,
        'SELECT migration_name FROM _prisma_migrations ORDER BY migration_name',
      )
      expect(applied.map((m) => m.migration_name)).toEqual(migrationDirs(project))

      // Deploying again is a no-op.
      const again = await prisma(project, ['migrate', 'deploy'], { DATABASE_URL: deployUrl })
      expectOk(again)
      expect(again.output).toContain('No pending migrations to apply.')
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'detects drift made by hand (migrate diff --exit-code, migrate dev --create-only)',
    async () => {
      await query(devUrl, 'ALTER TABLE "Post" ADD COLUMN "sneaky" INTEGER')

      const diff = await prisma(
        project,
        ['migrate', 'diff', '--from-migrations', 'prisma/migrations', '--to-config-datasource', '--exit-code'],
        { DATABASE_URL: devUrl },
      )
      expect(diff.code, diff.output).toBe(2) // 2 = non-empty diff
      expect(diff.output).toContain('Changed the `Post` table')
      expect(diff.output).toContain('Added column `sneaky`')

      const script = await prisma(
        project,
        ['migrate', 'diff', '--from-config-datasource', '--to-schema', 'prisma/schema.prisma', '--script'],
        { DATABASE_URL: devUrl },
      )
      expectOk(script)
      expect(script.output).toContain('ALTER TABLE "Post" DROP COLUMN "sneaky";')

      const dev = await prisma(project, ['migrate', 'dev', '--create-only', '--name', 'after_drift'], {
        DATABASE_URL: devUrl,
      })
      expect(dev.output).toContain('Drift detected: Your database schema is not in sync with your migration history.')
      expect(dev.output).toContain('Added column `sneaky`')
      expect(migrationDirs(project)).toHaveLength(2) // nothing was generated
      expect(await columnsOf(devUrl, 'Post')).toContain('sneaky') // and nothing was reset
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'db push syncs a fresh database without migrations',
    async () => {
      const pushUrl = await createScratchDatabase(databases)
      const result = await prisma(project, ['db', 'push'], { DATABASE_URL: pushUrl })
      expectOk(result)
      expect(result.output).toContain('Your database is now in sync with your Prisma schema.')
      expect(await tablesOf(pushUrl)).toEqual(['Post', 'User'])
      expect(await columnsOf(pushUrl, 'User')).toEqual(['id', 'email', 'name'])
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'reports Prisma error codes like the native engine (P3005, P1001)',
    async () => {
      // A non-empty database without migrations table cannot be deployed to.
      const dirtyUrl = await createScratchDatabase(databases)
      await query(dirtyUrl, 'CREATE TABLE "Legacy" (id int)')
      const deploy = await prisma(project, ['migrate', 'deploy'], { DATABASE_URL: dirtyUrl })
      expect(deploy.code).toBe(1)
      expect(deploy.output).toContain('P3005')
      expect(deploy.output).toContain('The database schema is not empty.')

      // Port 1 on localhost: nothing listens there.
      const unreachable = await prisma(project, ['migrate', 'status'], {
        DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/nothing',
      })
      expect(unreachable.code).toBe(1)
      expect(unreachable.output).toContain('P1001')
      expect(unreachable.output).toContain("Can't reach database server at `127.0.0.1`:`1`")
    },
    TEST_TIMEOUT_MS,
  )
})

// ---------------------------------------------------------------------------
// Embedded PGlite (one database, served over TCP by pglite-socket)
// ---------------------------------------------------------------------------

describe('schema-engine stand-in against an embedded PGlite server', () => {
  let db: PGlite
  let server: PGLiteSocketServer
  let url: string
  let project: string

  beforeAll(async () => {
    db = await PGlite.create()
    server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0 })
    await server.start()
    url = `postgresql://postgres@${server.getServerConn()}/postgres`
    project = createProject(MODELS_V1)
    // First migration, generated by `migrate diff --from-empty` (no shadow database needed).
    const init = await prisma(
      project,
      ['migrate', 'diff', '--from-empty', '--to-schema', 'prisma/schema.prisma', '--script', '--output', 'init.sql'],
      { DATABASE_URL: url },
    )
    expectOk(init)
    const dir = path.join(project, 'prisma/migrations/20200101000000_init')
    fs.mkdirSync(dir, { recursive: true })
    fs.renameSync(path.join(project, 'init.sql'), path.join(dir, 'migration.sql'))
    fs.writeFileSync(path.join(project, 'prisma/migrations/migration_lock.toml'), 'provider = "postgresql"\n')
  }, TEST_TIMEOUT_MS)

  afterAll(async () => {
    await server?.stop()
    await db?.close()
    if (project) fs.rmSync(project, { recursive: true, force: true })
  })

  const pgliteTables = async () =>
    (await db.query<{ tablename: string }>(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`)).rows.map(
      (r) => r.tablename,
    )

  it(
    'migrate deploy, migrate status and migrate dev (with an in-memory PGlite shadow database)',
    async () => {
      const deploy = await prisma(project, ['migrate', 'deploy'], { DATABASE_URL: url })
      expectOk(deploy)
      expect(deploy.output).toContain('All migrations have been successfully applied.')
      expect(await pgliteTables()).toEqual(['Post', 'User', '_prisma_migrations'])

      const status = await prisma(project, ['migrate', 'status'], { DATABASE_URL: url })
      expectOk(status)
      expect(status.output).toContain('Database schema is up to date!')

      writeModels(project, MODELS_V2)
      const dev = await prisma(project, ['migrate', 'dev', '--name', 'pglite_change'], { DATABASE_URL: url })
      expectOk(dev)
      const dirs = migrationDirs(project)
      expect(dirs).toHaveLength(2)
      expect(dirs[1]).toMatch(/_pglite_change$/)
      const columns = await db.query<{ column_name: string }>(
        `SELECT column_name FROM information_schema.columns WHERE table_name = 'User' ORDER BY ordinal_position`,
      )
      expect(columns.rows.map((r) => r.column_name)).toEqual(['id', 'email', 'name'])
      const applied = await db.query<{ migration_name: string }>(
        'SELECT migration_name FROM _prisma_migrations ORDER BY migration_name',
      )
      expect(applied.rows.map((r) => r.migration_name)).toEqual(dirs)
    },
    TEST_TIMEOUT_MS,
  )
})
