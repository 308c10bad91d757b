import { sqlPool } from '../db/client.ts'
import { deleteInBatches } from '../db/delete-in-batches.ts'

export function requestLogRetentionDays(): number {
  return Number(process.env.REQUEST_LOG_RETENTION_DAYS ?? 30)
}

// Small batches keep each delete's locks and WAL short on a busy log.
const batchSize = 10_000

/**
 * Deletes request log entries older than the retention period, newsroom by newsroom through
 * the (tenant_id, created_at) index: the log keeps no index on created_at alone, which every
 * request's row would pay for. Returns how many.
 */
export async function pruneRequestLog(now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - requestLogRetentionDays() * 86_400_000)
  const { rows: tenants } = await sqlPool.query<{ id: string }>('SELECT id FROM tenants')
  let deleted = 0
  for (const tenant of tenants) {
    deleted += await deleteInBatches(sqlPool, 'DELETE FROM api_requests WHERE id IN (SELECT id FROM api_requests WHERE tenant_id = $1 AND created_at < $2 LIMIT $3)', [tenant.id, cutoff], batchSize)
  }
  return deleted
}
