import pg from 'pg'
import { sanitizeBody } from '../lib/articles/sanitize-body.ts'
import { sanitiseBodiesMigration } from '../lib/db/data-migrations/sanitise-stored-bodies.ts'

/**
 * Records the body backfill as done in the bench's database, as `npm run db:migrate` does in a
 * deployment, when the seeded bodies are ones it would leave as they are (a sample is checked).
 * The bench's database is made by `prisma migrate deploy` and the seed, so without this the
 * measured service ran the backfill itself when it started (lib/db/data-migrations/background-
 * data-migrations.ts): half a core sanitising every stored body (1.1M at BENCH_ARTICLES=1000000,
 * about 10 minutes) while the rows were measured, its batches holding the event loop 40 ms at a
 * time, and every body served meanwhile sanitised on its way out. That is a one-off of an
 * upgrade, not what a request costs: the events rows at 1,000,000 events were charged 1,155 µs
 * of the service's CPU per page for it, against 636 µs at 100,000 measured before the backfill
 * moved into the server.
 */
export async function recordBodyBackfill(databaseUrl: string): Promise<'recorded' | 'bodies need it'> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    // About one page in a thousand, anywhere in the table, without reading the rest of it, and
    // the first rows, which a table too small for the sample's pages still has.
    const { rows } = await client.query<{ body: string }>(
      `(SELECT body FROM articles TABLESAMPLE SYSTEM (0.1) REPEATABLE (42) WHERE body IS NOT NULL LIMIT 200)
       UNION ALL (SELECT body FROM articles WHERE body IS NOT NULL LIMIT 50)`,
    )
    if (rows.some((row) => sanitizeBody(row.body) !== row.body)) return 'bodies need it'
    await client.query(`INSERT INTO data_migrations (name, changed) VALUES ($1, 0) ON CONFLICT (name) DO NOTHING`, [sanitiseBodiesMigration])
    return 'recorded'
  } finally {
    await client.end()
  }
}
