/**
 * `npm run db:migrate`: the release's migration step. The schema migrations (`prisma migrate
 * deploy`), then the data migrations (data-migrations.ts), in the database DATABASE_URL names or
 * this checkout's embedded one (own-database.ts), never another checkout's; under the migration
 * lock (schema-migrations.ts), so two hosts running it at once migrate once.
 */
import { runDataMigrationsCommand } from './data-migrations.ts'
import { withOwnDatabase } from './own-database.ts'
import { migrateOnce } from './schema-migrations.ts'

await withOwnDatabase(async (embedded) => {
  await migrateOnce(process.env.DATABASE_URL!, { embedded, then: runDataMigrationsCommand })
  if (!process.exitCode) console.log('Migration step done: the schema and data migrations are applied.')
})
