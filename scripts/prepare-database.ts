/**
 * The start-up steps that need application code, after `prisma migrate deploy`: when SEED=true,
 * the development newsrooms. The data migrations (lib/db/data-migrations) no longer run here,
 * before the server listens: the server runs them in the background while it serves
 * (background-data-migrations.ts, from instrumentation.ts), and `npm run db:migrate` to completion. `npm start` runs this in a child process (dist/prepare-database.mjs),
 * so the server process loads lib/ once, in Next's build; `npm run dev` calls it in process.
 */
import { db } from '../lib/db/client.ts'

export async function prepareDatabase(options: { seed: boolean }): Promise<void> {
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
