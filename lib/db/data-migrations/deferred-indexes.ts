import { sqlPool } from '../client.ts'

/**
 * Indexes a migration builds only on a small archive (a plain CREATE INDEX holds up every write
 * while it runs: 4.5 s at 1,100,000 articles), leaving a bigger one to the server, which builds
 * them CONCURRENTLY while it serves (background-data-migrations.ts), and to `npm run db:migrate`.
 * Until one is there its queries are exact, only slower.
 */
export type DeferredIndex = {
  /** The data migration's name, as /readyz and the logs report it. */
  migration: string
  /** The index's name, as its migration and prisma/schema.prisma name it. */
  name: string
  /** What CREATE INDEX is given after the name: the same as in its migration. */
  definition: string
  /** What it serves, for the log lines. */
  purpose: string
}

export const deferredIndexes: DeferredIndex[] = [
  // Migration 20261126073000_change_sequence.
  { migration: 'change_order_index', name: 'articles_change_order_idx', definition: 'ON "articles"("tenant_id", "change_xid", "updated_at", "id")', purpose: 'the changes feed index' },
  // Migration 20261129140000_articles_slug_index.
  { migration: 'article_slug_index', name: 'articles_slug_idx', definition: 'ON "articles"("tenant_id", "slug")', purpose: "the content API's index for an article asked for by its slug" },
]

export const changeOrderIndex = deferredIndexes[0]!

/**
 * Builds `index` if it is missing. Any two instances starting together: one builds, the other
 * sees the lock taken and leaves it. A build cut short (a crash, a restart) leaves an invalid
 * index, which is dropped and built again. `onBuilding` is called when a build starts. Returns
 * whether it built one; false when it was there already or another session is building it.
 */
export async function ensureDeferredIndex(index: DeferredIndex, onBuilding: () => void = () => {}): Promise<boolean> {
  const client = await sqlPool.connect()
  const buildLock = `newsroom:${index.name}`
  const validity = async () => (await client.query<{ valid: boolean | null }>(`SELECT (SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass($1)) AS valid`, [index.name])).rows[0]!.valid
  try {
    if ((await validity()) === true) return false
    const { rows: locked } = await client.query<{ taken: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS taken', [buildLock])
    if (!locked[0]!.taken) return false
    try {
      // Asked again under the lock: a build that finished meanwhile is not dropped.
      const valid = await validity()
      if (valid === true) return false
      onBuilding()
      if (valid === false) await client.query(`DROP INDEX CONCURRENTLY IF EXISTS "${index.name}"`)
      await client.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS "${index.name}" ${index.definition}`)
      return true
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [buildLock])
    }
  } finally {
    client.release()
  }
}

/** The changes feed's index (articles_change_order_idx): ensureDeferredIndex. */
export function ensureChangeOrderIndex(onBuilding?: () => void): Promise<boolean> {
  return ensureDeferredIndex(changeOrderIndex, onBuilding)
}
