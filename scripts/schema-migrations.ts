/**
 * The schema migrations as a rolling deploy needs them: one step, run once per release before
 * any new instance starts (`npm run db:migrate`, and `npm run cluster`'s migration step), never
 * by each instance on its own. Two hosts that run the step at the same moment migrate once:
 * the step holds a PostgreSQL advisory lock (on its own connection) for as long as it runs, so
 * the second waits, then finds nothing left to apply. An instance started with
 * MIGRATE_ON_START=false only checks that every migration it knows is applied, and refuses to
 * start otherwise, rather than serving on a schema it was not written for.
 *
 * Kept free of the application's modules: the production server bundles it (boot.ts).
 */
import { readdirSync } from 'node:fs'
import path from 'node:path'
import pg from 'pg'
import { runPrisma } from './run-prisma.ts'

/** The advisory lock's key: any fixed bigint no other part of the service takes ("newsroom migrate"). */
export const migrationLockKey = '7246551001'

export function migrationsDir(): string {
  return path.resolve(process.env.NEWSROOM_ROOT ?? process.cwd(), 'prisma/migrations')
}

/** The migrations this release carries, oldest first (prisma/migrations). */
export function knownMigrations(dir = migrationsDir()): string[] {
  return readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort()
}

/** The migrations this release carries that the database has not applied (all of them on an empty database). */
export async function pendingMigrations(databaseUrl: string, dir = migrationsDir()): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    const exists = await client.query<{ found: string | null }>(`SELECT to_regclass('_prisma_migrations')::text AS found`)
    if (!exists.rows[0]?.found) return knownMigrations(dir)
    const applied = await client.query<{ migration_name: string }>('SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL')
    const done = new Set(applied.rows.map((row) => row.migration_name))
    return knownMigrations(dir).filter((name) => !done.has(name))
  } finally {
    await client.end()
  }
}

/**
 * Runs `work` while holding the migration lock on `databaseUrl`; when another host holds it,
 * says so (`onWait`) and waits for it. The lock is a session lock on a connection of its own,
 * released when `work` ends, or by PostgreSQL if this process dies.
 */
export async function withMigrationLock<T>(databaseUrl: string, work: () => Promise<T>, onWait: () => void = () => undefined): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'newsroom migration step' })
  await client.connect()
  try {
    const tried = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS locked', [migrationLockKey])
    if (!tried.rows[0]?.locked) {
      onWait()
      await client.query('SELECT pg_advisory_lock($1::bigint)', [migrationLockKey])
    }
    return await work()
  } finally {
    await client.query('SELECT pg_advisory_unlock($1::bigint)', [migrationLockKey]).catch(() => undefined)
    await client.end().catch(() => undefined)
  }
}

/**
 * `prisma migrate deploy` under the lock (`then` runs under it too: the data migrations). The
 * embedded database (one process, one client at a time) takes no lock: nothing else migrates it.
 */
export async function migrateOnce(databaseUrl: string, options: { embedded?: boolean; then?: () => Promise<void> } = {}): Promise<void> {
  const migrate = async () => {
    await runPrisma(['migrate', 'deploy'], { ...process.env, DATABASE_URL: databaseUrl })
    await options.then?.()
  }
  if (options.embedded) return migrate()
  await withMigrationLock(databaseUrl, migrate, () => console.log('Another host is running the migration step; waiting for it to finish…'))
}

export class SchemaNotReadyError extends Error {}

/**
 * MIGRATE_ON_START as environment files write it: unset, true/1/yes/on, or false/0/no/off (any
 * case). Anything else is refused: read as "on", a misspelt "false" would let every instance of
 * a rolling deploy change the schema under the old ones.
 */
export function migrateOnStart(value: string | undefined): boolean {
  const setting = value?.trim().toLowerCase()
  if (setting === undefined || setting === '' || ['true', '1', 'yes', 'on'].includes(setting)) return true
  if (['false', '0', 'no', 'off'].includes(setting)) return false
  throw new SchemaNotReadyError(`MIGRATE_ON_START is '${value}': set it to false (instances of a rolling deploy: the migration step migrates) or true.`)
}

/**
 * What an instance does with the schema as it starts. MIGRATE_ON_START=false (every instance
 * of a rolling deploy): nothing but the check that the migration step has run. Otherwise (one
 * host, `npm run dev`, the embedded store): the migrations, under the lock.
 */
export async function prepareSchemaOnStart(databaseUrl: string, options: { embedded?: boolean; env?: Record<string, string | undefined> } = {}): Promise<'migrated' | 'checked'> {
  const env = options.env ?? process.env
  if (migrateOnStart(env.MIGRATE_ON_START) === false && !options.embedded) {
    const pending = await pendingMigrations(databaseUrl)
    if (pending.length > 0) {
      throw new SchemaNotReadyError(
        `MIGRATE_ON_START=false and the database lacks ${pending.length} migration(s) this release needs (${pending.slice(0, 3).join(', ')}${pending.length > 3 ? ', …' : ''}): run the migration step (\`npm run db:migrate\`) before starting instances.`,
      )
    }
    return 'checked'
  }
  await migrateOnce(databaseUrl, { embedded: options.embedded })
  return 'migrated'
}
