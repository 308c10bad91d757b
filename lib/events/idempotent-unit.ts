import { AsyncLocalStorage } from 'node:async_hooks'
import { DomainError } from '../errors.ts'
import type { SqlTransaction } from '../db/sql-transaction.ts'
import { processSingleton } from '../process-singleton.ts'

/**
 * The Idempotency-Key a request runs under (lib/api/idempotency.ts claims it), as the unit of
 * work (commitChange) sees it: each change committed under the key records its result on the
 * key *in its own transaction*, so a crash leaves either both the change and the record, or
 * neither. A retry that takes over a lapsed claim whose work had committed runs the handler
 * again with `recovered` set: each commit then returns the result recorded the first time
 * instead of changing anything twice, and the handler renders the answer the first request
 * would have given.
 */
export type IdempotentUnit = {
  tokenId: string
  key: string
  claimId: string
  /** Results of the changes the first attempt committed, in commit order (JSON). */
  recovered: unknown[]
  /** How many changes this attempt has committed (or recovered) so far. */
  committed: number
  /**
   * The version of the article the change now being made was judged against (its workflow,
   * its state, its pin), recorded with the change's result: a retry that recovers the change
   * judges that version again, not the article its own change made (judgingVersion).
   */
  judging?: unknown
}

// One per process, however many copies of this module are loaded (process-singleton.ts): the
// door that opens the unit and the change that records in it must share it.
const current = processSingleton('idempotent unit', () => new AsyncLocalStorage<IdempotentUnit>())

export function runAsIdempotentUnit<T>(unit: IdempotentUnit, work: () => Promise<T>): Promise<T> {
  return current.run(unit, work)
}

export function idempotentUnit(): IdempotentUnit | undefined {
  return current.getStore()
}

// A recorded result with the article version it was judged against (judging) is kept as
// { [judgedMark]: version, value }; one without, as the value itself (as every result was before).
const judgedMark = '$judged'
type JudgedOutcome = { [judgedMark]: unknown; value: unknown }

function isJudged(recorded: unknown): recorded is JudgedOutcome {
  return typeof recorded === 'object' && recorded !== null && !Array.isArray(recorded) && judgedMark in recorded
}

/** The result a crashed first attempt committed for this change, if there is one. */
export function recoveredOutcome(unit: IdempotentUnit): { value: unknown } | undefined {
  if (unit.committed >= unit.recovered.length) return undefined
  const recorded = unit.recovered[unit.committed]
  unit.committed++
  return { value: revive(isJudged(recorded) ? recorded.value : recorded) }
}

/**
 * The version of the article the first attempt judged its next change against, when this
 * request retries, under its Idempotency-Key, a first attempt whose change committed (and which
 * recorded that version): the retry must judge what the first attempt judged. Judged against
 * the article as the first attempt's own change left it, a move was refused as a move to the
 * state it was already in (409, stored on the key) instead of answered (break80). Revived as
 * recorded results are (its instants Dates again).
 */
export function recoveredJudgedVersion(): unknown {
  const unit = idempotentUnit()
  if (!unit || unit.committed >= unit.recovered.length) return undefined
  const recorded = unit.recovered[unit.committed]
  return isJudged(recorded) ? revive(recorded[judgedMark]) : undefined
}

/** Runs `work` (which commits one change, commitChange) noting the version it judges, to be recorded with the change's result. */
export async function judgingVersion<T>(version: unknown, work: () => Promise<T>): Promise<T> {
  const unit = idempotentUnit()
  if (!unit) return work()
  unit.judging = version
  try {
    return await work()
  } finally {
    unit.judging = undefined
  }
}

/**
 * Inside the change's transaction: records that it committed under the key, with its result.
 * Refused (and so rolled back) when this request no longer holds the key's claim: its lease
 * lapsed and a retry took the work over, which must then be the only one to do it.
 */
export async function recordIdempotentOutcome(tx: SqlTransaction, unit: IdempotentUnit, value: unknown): Promise<void> {
  const outcome = unit.judging === undefined ? (value ?? null) : ({ [judgedMark]: unit.judging, value: value ?? null } satisfies JudgedOutcome)
  const json = JSON.stringify([outcome], (_key, field: unknown) => (typeof field === 'bigint' ? field.toString() : field))
  const recorded = await tx.$executeRaw`
    UPDATE idempotency_records
    SET committed_at = now(), outcomes = COALESCE(outcomes, '[]'::jsonb) || ${json}::jsonb
    WHERE token_id = ${unit.tokenId} AND key = ${unit.key} AND claim_id = ${unit.claimId} AND completed_at IS NULL`
  if (recorded !== 1) {
    throw new DomainError('idempotency_key_in_use', 'A retry with this Idempotency-Key took this request over while it was slow; nothing was changed by this one. Retry to get the answer.')
  }
}

/** Marks the change as committed under the key, once its transaction has. */
export function countCommitted(unit: IdempotentUnit): void {
  unit.committed++
}

const isoInstant = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/** JSON back to the shapes the handler rendered from: instants were Dates (Prisma's and pg's). */
function revive(value: unknown): unknown {
  if (typeof value === 'string') return isoInstant.test(value) ? new Date(value) : value
  if (Array.isArray(value)) return value.map(revive)
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, revive(field)]))
  return value
}
