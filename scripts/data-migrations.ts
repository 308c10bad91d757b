/**
 * The data migrations that need application code (lib/db/data-migrations), after `prisma
 * migrate deploy`; `npm run db:migrate` (db-migrate.ts) runs both, to completion; `npm start` and
 * `npm run dev` run them in the background while they serve (background-data-migrations.ts). Run alone: `tsx scripts/data-migrations.ts`.
 */
import { withOwnDatabase } from './own-database.ts'

export async function runDataMigrationsCommand(): Promise<void> {
  const { runDataMigrations } = await import('../lib/db/data-migrations/sanitise-stored-bodies.ts')
  const { deferredIndexes, ensureDeferredIndex } = await import('../lib/db/data-migrations/deferred-indexes.ts')
  try {
    for (const index of deferredIndexes) if (await ensureDeferredIndex(index)) console.log(`Data migration ${index.migration}: built ${index.name}, ${index.purpose}.`)
    await runDataMigrations()
  } catch (error) {
    console.error(error instanceof Error ? error.message : error)
    process.exitCode = 1
  }
}

if (process.argv[1] === import.meta.filename) await withOwnDatabase(runDataMigrationsCommand)
