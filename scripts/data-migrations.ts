/**
 * `npm run db:migrate`'s second half (after `prisma migrate deploy`): the data migrations that
 * need application code. `npm start` and `npm run dev` run the same step on every start.
 */
import { runDataMigrations } from '../lib/db/data-migrations/sanitise-stored-bodies.ts'
import { db } from '../lib/db/client.ts'

runDataMigrations()
  .then(() => db.$disconnect())
  .catch((error) => {
    console.error(error instanceof Error ? error.message : error)
    process.exit(1)
  })
