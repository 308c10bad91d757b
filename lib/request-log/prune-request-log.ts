import { sqlPool } from '../db/client.ts'
import { deleteInBatches } from '../db/delete-in-batches.ts'

export function requestLogRetentionDays(): number {
  return Number(process.env.REQUEST_LOG_RETENTION_DAYS ?? 30)
}

// Small steps keep each delete's locks and WAL short on a busy log (a batch holds up to 500 entries).
const batchSize = 1_000

/**
 * Deletes the request log's batches whose last entry is older than the retention period,
 * newsroom by newsroom through the (tenant_id, last_at) index. Returns how many entries went.
 */
export async function pruneRequestLog(now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - requestLogRetentionDays() * 86_400_000)
  const { rows: tenants } = await sqlPool.query<{ id: string }>('SELECT id FROM tenants')
  let deleted = 0
  for (const tenant of tenants) {
    deleted += await deleteInBatches(
      sqlPool,
      'DELETE FROM api_request_batches WHERE id IN (SELECT id FROM api_request_batches WHERE tenant_id = $1 AND last_at < $2 LIMIT $3) RETURNING entry_count',
      [tenant.id, cutoff],
      batchSize,
      (result) => result.rows.reduce((sum: number, row: { entry_count: number }) => sum + row.entry_count, 0),
    )
  }
  return deleted
}
