import { isDatabaseUnavailable } from '../api/database-errors.ts'
import { ServiceUnavailableError } from '../errors.ts'
import { logger } from '../ops/logger.ts'
import { stalePreparedPlan } from './prepared-query.ts'

const maxStalePlanRetries = 32

/**
 * The app's one rule for a database switch (a PostgreSQL failover: Patroni promotes a replica,
 * HAProxy moves the write address to it). While it happens, connections are refused, cut, or
 * land on a server that is still read-only. A transaction that failed *before its COMMIT was
 * sent* did nothing and is run again, with short waits, for up to FAILOVER_RETRY_MS (default
 * 15 s: Patroni's leader TTL and HAProxy's checks fit in it). A failure at or after COMMIT may
 * have committed, so it is never run again here: the caller answers 503 with Retry-After (an
 * Idempotency-Key makes the client's retry safe, lib/api/idempotency.ts).
 */
export const failoverRetryMs = () => Number(process.env.FAILOVER_RETRY_MS ?? 15_000)

// 25006 read_only_sql_transaction: the write address still reaches a server being demoted or
// not yet promoted. Nothing was written.
export const readOnlyServer = (error: unknown) => codeOf(error) === '25006'

function codeOf(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && typeof current === 'object' && depth < 5; current = (current as { cause?: unknown }).cause, depth++) {
    const code = (current as { code?: unknown }).code
    if (typeof code === 'string') return code
  }
  return undefined
}

/** Whether a failure of work that had not reached its COMMIT is worth running again after a database switch. */
export function failedBeforeCommitDuringSwitch(error: unknown): boolean {
  return readOnlyServer(error) || isDatabaseUnavailable(error)
}

/**
 * Runs `attempt` until it succeeds, or fails otherwise than by the database switching under it
 * before COMMIT (`attempt` tells, through `beforeCommit`, whether the failure came before it
 * sent COMMIT), or FAILOVER_RETRY_MS have passed: then a 503 with Retry-After.
 */
export async function retryThroughFailover<Result>(attempt: (progress: { committing: boolean }) => Promise<Result>, what: string): Promise<Result> {
  const deadline = Date.now() + failoverRetryMs()
  for (let tries = 1; ; tries++) {
    const progress = { committing: false }
    try {
      return await attempt(progress)
    } catch (error) {
      // A prepared statement a migration made stale (prepared-query.ts) ran nothing; its
      // connection was dropped, and the next attempt prepares it anew. Each pooled connection can
      // hold one such statement: a few attempts, at once.
      if (!progress.committing && stalePreparedPlan(error) && tries <= maxStalePlanRetries) continue
      if (progress.committing || !failedBeforeCommitDuringSwitch(error)) throw error
      if (Date.now() >= deadline) {
        throw new ServiceUnavailableError(`The database is switching to a new primary; the ${what} was not stored. Retry in a few seconds.`, 2, { cause: error })
      }
      if (tries === 1) logger.warn({ error: (error as Error).message }, `${what} met a database switch; running it again once the new primary answers`)
      await new Promise((resolve) => setTimeout(resolve, Math.min(250 * tries, 1_000)))
    }
  }
}
