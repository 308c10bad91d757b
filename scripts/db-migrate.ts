/**
 * `npm run db:migrate`: the schema migrations (`prisma migrate deploy`), then the data
 * migrations (data-migrations.ts), in the database DATABASE_URL names or this checkout's
 * embedded one (own-database.ts), never another checkout's.
 */
import { runDataMigrationsCommand } from './data-migrations.ts'
import { withOwnDatabase } from './own-database.ts'
import { runPrisma } from './run-prisma.ts'

await withOwnDatabase(async () => {
  await runPrisma(['migrate', 'deploy'])
  await runDataMigrationsCommand()
})
