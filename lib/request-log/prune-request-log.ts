import { sqlPool } from '../db/client.ts'

export function requestLogRetentionDays(): number {
  return Number(process.env.REQUEST_LOG_RETENTION_DAYS ?? 30)
}

// Small batches keep each delete's locks and WAL short on a busy log.
const batchSize = 10_000

/** Deletes request log entries older than the retention period; returns how many. */
export async function pruneRequestLog(now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - requestLogRetentionDays() * 86_400_000)
  let deleted = 0
  for (;;) {
    const result = await sqlPool.query('DELETE FROM api_requests WHERE id IN (SELECT id FROM api_requests WHERE created_at < $1 LIMIT $2)', [cutoff, batchSize])
    deleted += result.rowCount ?? 0
    if ((result.rowCount ?? 0) < batchSize) return deleted
  }
}
