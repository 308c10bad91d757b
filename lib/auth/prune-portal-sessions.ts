import { sqlPool } from '../db/client.ts'
import { deleteInBatches, type SqlRunner } from '../db/delete-in-batches.ts'
import { sessionIdleLimitMs } from './portal-sessions.ts'

/** How long the record of a finished sign-in stays: as long as the request log keeps a key's calls. */
const keptForMs = 30 * 86_400_000
const batchSize = 5_000

/**
 * Deletes the records of portal sessions that finished more than 30 days ago: ended ones (signed
 * out, ended from Security, by a password change or deactivation) and ones that lapsed unused
 * (last seen more than the idle limit before that). Live sessions are never touched, so nobody
 * is signed out by it. Without it every sign-in's row was kept forever.
 */
export async function prunePortalSessions(now = new Date(), database: SqlRunner = sqlPool): Promise<{ sessions: number }> {
  const endedBefore = new Date(now.getTime() - keptForMs)
  const lastSeenBefore = new Date(endedBefore.getTime() - sessionIdleLimitMs)
  const sessions = await deleteInBatches(
    database,
    `DELETE FROM portal_sessions WHERE id IN (
       SELECT id FROM portal_sessions WHERE ended_at < $1 OR (ended_at IS NULL AND last_seen_at < $2) LIMIT $3)`,
    [endedBefore, lastSeenBefore],
    batchSize,
  )
  return { sessions }
}
