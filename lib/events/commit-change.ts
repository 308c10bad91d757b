import type { SqlTransaction } from '../db/sql-transaction.ts'
import type { TenantDb } from '../tenancy/tenant-db.ts'
import { eventsChanged, tenantsWithListedEvents } from './event-generation.ts'
import { handOffToQueue } from './queue-hand-off.ts'
import { recordEvents, type EventInput, type RecordedEvent } from './record-event.ts'
import { countCommitted, idempotentUnit, recordIdempotentOutcome, recoveredOutcome } from './idempotent-unit.ts'

/** A transaction of the tenant's Prisma client, for changes made through Prisma's models. */
export type ChangeTransaction = Parameters<Parameters<TenantDb['$transaction']>[0]>[0]
/** Whatever runs a change's transaction: the tenant's Prisma client, or the pg pool (sqlDatabase) for raw-SQL changes. */
export type TransactionalDb<Tx extends SqlTransaction> = { $transaction<Result>(work: (tx: Tx) => Promise<Result>): Promise<Result> }
/**
 * Writes events to the outbox in the change's own transaction; `written` registers events a
 * statement of the change inserted itself (lib/articles/article-write-statement.ts), so they
 * are handed on after commit like the others.
 */
export type Emit = ((events: EventInput[]) => Promise<RecordedEvent[]>) & { written(events: RecordedEvent[]): void }
/** Runs once the change has committed, before the writer answers: what must not outlive it (cached totals, token scopes). */
export type AfterCommit = (events: RecordedEvent[]) => Promise<void> | void

/**
 * A change and the events it emits, as one unit: `change` runs in a transaction of the tenant's
 * database and emits its events into the outbox there, so they commit together or not at all.
 * Once committed, `afterCommit` runs and the events are handed to the queue without waiting for
 * it (the outbox stays the source of truth: what the queue does not take now, the sweeper
 * re-sends). This is the only way a change emits events, so none can be committed and then
 * forgotten until the sweeper's next pass.
 *
 * A change that finds it lost a race returns without emitting; nothing is handed on then.
 *
 * Under an Idempotency-Key (idempotent-unit.ts) the change records its result on the key in
 * the same transaction; when a retry recovers a crashed request whose change had committed,
 * the recorded result is returned and nothing runs again.
 */
export async function commitChange<Tx extends SqlTransaction, T>(
  db: TransactionalDb<Tx>,
  tenantId: string,
  change: (tx: Tx, emit: Emit) => Promise<T>,
  options: { afterCommit?: AfterCommit } = {},
): Promise<T> {
  const unit = idempotentUnit()
  const recovered = unit && recoveredOutcome(unit)
  if (recovered) {
    // The first attempt committed and may have died before its after-commit step (the generation
    // advance, before which other instances still serve answers from before the change): run it
    // now, before this retry acknowledges the change (break80). What it advances is only what a
    // second advance makes cache misses of; its events are in the outbox for the sweeper.
    await Promise.all([options.afterCommit?.([]), eventsChanged([tenantId])])
    return recovered.value as T
  }
  let emitted: RecordedEvent[] = []
  const value = await db.$transaction(async (tx: Tx) => {
    emitted = []
    const emit: Emit = Object.assign(
      async (events: EventInput[]) => {
        const recorded = await recordEvents(tx, tenantId, events)
        emitted.push(...recorded)
        return recorded
      },
      { written: (events: RecordedEvent[]) => void emitted.push(...events) },
    )
    const result = await change(tx, emit)
    if (unit) await recordIdempotentOutcome(tx, unit, result)
    return result
  })
  if (unit) countCommitted(unit)
  if (emitted.length > 0) {
    // The events API's cached pages (event-generation.ts) must not outlive the commit either.
    await Promise.all([options.afterCommit?.(emitted), eventsChanged(tenantsWithListedEvents(emitted))])
    handOffToQueue(emitted)
  }
  return value
}
