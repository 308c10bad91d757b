/**
 * `npm run db:seed` (and `prisma db seed`): the development newsrooms (prisma/development-seed.ts)
 * in the database DATABASE_URL names, or the embedded one. Safe to run twice.
 */
import { db } from '../lib/db/client.ts'
import { startEmbeddedDatabaseIfNeeded } from '../lib/db/embedded-server.ts'
import { seed } from './development-seed.ts'

const embedded = await startEmbeddedDatabaseIfNeeded()
await seed()
  .catch((error) => {
    console.error(error)
    process.exitCode = 1
  })
  .finally(async () => {
    await db.$disconnect()
    await embedded?.stop()
  })
