import { sqlPool } from '../client.ts'

export const changeOrderIndexMigration = 'change_order_index'

// Any two instances starting together: one builds, the other sees the lock taken and leaves it.
const buildLock = 'newsroom:articles_change_order_idx'

/**
 * The changes feed's index (articles_change_order_idx) on an archive the change_sequence
 * migration left it to (over 250,000 articles): built CONCURRENTLY, so writes go on while it is
 * built, by the server in the background (background-data-migrations.ts) and by
 * `npm run db:migrate`. A build cut short (a crash, a restart) leaves an invalid index, which
 * is dropped and built again. `onBuilding` is called when a build starts. Returns whether it built one; false when it was there already or
 * another session is building it.
 */
export async function ensureChangeOrderIndex(onBuilding: () => void = () => {}): Promise<boolean> {
  const client = await sqlPool.connect()
  const validity = async () =>
    (await client.query<{ valid: boolean | null }>(`SELECT (SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass('articles_change_order_idx')) AS valid`)).rows[0]!.valid
  try {
    if ((await validity()) === true) return false
    const { rows: locked } = await client.query<{ taken: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS taken', [buildLock])
    if (!locked[0]!.taken) return false
    try {
      // Asked again under the lock: a build that finished meanwhile is not dropped.
      const valid = await validity()
      if (valid === true) return false
      onBuilding()
      if (valid === false) await client.query('DROP INDEX CONCURRENTLY IF EXISTS "articles_change_order_idx"')
      await client.query('CREATE INDEX CONCURRENTLY IF NOT EXISTS "articles_change_order_idx" ON "articles"("tenant_id", "change_xid", "updated_at", "id")')
      return true
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [buildLock])
    }
  } finally {
    client.release()
  }
}
