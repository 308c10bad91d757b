import { ServiceUnavailableError } from '../errors.ts'
import { logger } from '../ops/logger.ts'
import { postgresError } from './sql-state.ts'

// SQLSTATEs PostgreSQL raises when it rolls a transaction back to settle a conflict with
// another one: 40P01 deadlock_detected, 40001 serialization_failure. The transaction did
// nothing, and the same work run again usually gets through.
const conflictReasons: Readonly<Record<string, string>> = { '40P01': 'a deadlock', '40001': 'a serialization failure' }

/** Why PostgreSQL rolled the transaction back to settle a conflict ('a deadlock' …), or undefined for any other error. */
export function transactionConflict(error: unknown): string | undefined {
  const found = postgresError(error, (code) => Object.hasOwn(conflictReasons, code))
  return found && conflictReasons[found.code]
}

export type ConflictRetryOptions = {
  /** What runs, for the log line and the refusal: 'bulk import'. */
  what: string
  /** Attempts in all, the first included. */
  attempts?: number
  /** The first wait; each later one may be twice as long. Each wait is a random part of its bound, so rivals do not meet again. */
  baseDelayMs?: number
}

export const defaultConflictAttempts = 5

/**
 * Runs `transaction` again when PostgreSQL rolled it back for a deadlock or a serialization
 * failure, up to `attempts` in all, after a short random wait (full jitter on an exponential
 * bound). `transaction` must be one whole transaction whose effects, results included, exist
 * only once it returns: a rolled-back attempt leaves nothing, so what the caller sees is one
 * attempt's. When every attempt met a conflict, a ServiceUnavailableError ('write_conflict', a
 * 503 with Retry-After) says so rather than the database's error, which would read as a 500.
 */
export async function retryTransactionConflicts<Result>(transaction: () => Promise<Result>, options: ConflictRetryOptions): Promise<Result> {
  const attempts = options.attempts ?? defaultConflictAttempts
  const baseDelayMs = options.baseDelayMs ?? 20
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction()
    } catch (error) {
      const reason = transactionConflict(error)
      if (!reason) throw error
      if (attempt >= attempts) {
        logger.warn({ attempts, reason }, `${options.what} gave up after ${attempts} attempts met ${reason}`)
        throw new ServiceUnavailableError(
          `Other requests were changing the same records at the same moment; the ${options.what} was tried ${attempts} times and nothing was stored. Retry shortly.`,
          1,
          { cause: error, code: 'write_conflict' },
        )
      }
      logger.warn({ attempt, reason }, `${options.what} retried after ${reason}`)
      await new Promise((resolve) => setTimeout(resolve, Math.random() * baseDelayMs * 2 ** (attempt - 1)))
    }
  }
}
