/**
 * The start-up steps that need application code, after `prisma migrate deploy`: the data
 * migrations (lib/db/data-migrations; each runs once per database) and, when SEED=true, the
 * development newsrooms. `npm start` runs this in a child process (dist/prepare-database.mjs),
 * so the server process loads lib/ once, in Next's build; `npm run dev` calls it in process.
 */
import { db } from '../lib/db/client.ts'
import { runDataMigrations } from '../lib/db/data-migrations/sanitise-stored-bodies.ts'

export async function prepareDatabase(options: { seed: boolean }): Promise<void> {
  await runDataMigrations()
  if (options.seed) {
    const { seed } = await import('../prisma/development-seed.ts')
    await seed()
  }
}

// Run as a program (dist/prepare-database.mjs), not imported (scripts/dev.ts).
if (process.argv[1] === import.meta.filename) {
  prepareDatabase({ seed: process.env.SEED === 'true' })
    .then(() => db.$disconnect())
    .catch((error) => {
      console.error(error instanceof Error ? error.message : error)
      process.exit(1)
    })
}
