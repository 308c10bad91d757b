/**
 * The data migrations that need application code (lib/db/data-migrations), after `prisma
 * migrate deploy`; `npm run db:migrate` (db-migrate.ts) runs both, to completion; `npm start` and
 * `npm run dev` run them in the background while they serve (background-data-migrations.ts). Run alone: `tsx scripts/data-migrations.ts`.
 */
import { withOwnDatabase } from './own-database.ts'

export async function runDataMigrationsCommand(): Promise<void> {
  const { runDataMigrations } = await import('../lib/db/data-migrations/sanitise-stored-bodies.ts')
  const { ensureChangeOrderIndex } = await import('../lib/db/data-migrations/change-order-index.ts')
  try {
    if (await ensureChangeOrderIndex()) console.log('Data migration change_order_index: built articles_change_order_idx, the changes feed index.')
    await runDataMigrations()
  } catch (error) {
    console.error(error instanceof Error ? error.message : error)
    process.exitCode = 1
  }
}

if (process.argv[1] === import.meta.filename) await withOwnDatabase(runDataMigrationsCommand)
