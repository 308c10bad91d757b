/**
 * `npm run db:seed` (and `prisma db seed`): the development newsrooms (prisma/development-seed.ts)
 * in the database DATABASE_URL names, or this checkout's embedded one. Safe to run twice.
 */
import { withOwnDatabase } from '../scripts/own-database.ts'

await withOwnDatabase(async () => {
  const { seed } = await import('./development-seed.ts')
  await seed().catch((error: unknown) => {
    console.error(error)
    process.exitCode = 1
  })
})
