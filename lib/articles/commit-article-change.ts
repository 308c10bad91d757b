import { singleStatementDatabase, sqlDatabase, type SqlTransaction } from '../db/sql-transaction.ts'
import { commitChange, type Emit } from '../events/commit-change.ts'
import { articlesChanged } from './article-totals.ts'
import { withContentPurges } from '../content/content-purges.ts'
import type { EventInput } from '../events/record-event.ts'
import { idempotentUnit } from '../events/idempotent-unit.ts'
import { retryTransactionConflicts } from '../db/transaction-conflicts.ts'
import { liveMediaRefusal } from '../media/publishable-media.ts'

/**
 * A change to articles and its events, committed as one unit (commitChange) with the articles'
 * own after-commit step: the tenant's article generation advances before the writer answers, so
 * cached totals and cached answers (lib/api/response-cache.ts) never outlive the change. Every
 * article write goes through here; importing it is what guarantees the step runs in any process
 * that writes articles, which a hook registered when some other module loads would not.
 */
export function commitArticleChange<T>(
  tenantId: string,
  change: (tx: SqlTransaction, emit: Emit) => Promise<T>,
  options: { oneStatement?: boolean; what?: string } = {},
): Promise<T> {
  // Article changes are raw SQL (article-writes.ts), so they run on a pg connection of their own
  // rather than in a Prisma interactive transaction, whose machinery cost more than the statements.
  // A change written as one statement (article-write-statement.ts) needs no transaction block,
  // unless an Idempotency-Key's record must commit with it (lib/events/idempotent-unit.ts).
  // Events emitted directly (bulk import) carry their content purge too (lib/content/content-purges.ts).
  const withPurges = (tx: SqlTransaction, emit: Emit) => change(tx, Object.assign((events: EventInput[]) => emit(withContentPurges(tenantId, events)), { written: emit.written }))
  // The kept counts' triggers lock count rows in key order within a statement, but a statement
  // of two phases (a bulk import's INSERT … ON CONFLICT runs its update triggers, then its insert
  // triggers) takes them in two runs, so a concurrent write can meet it in the other order and
  // PostgreSQL rolls one back: that write is run again, whole, rather than answered with a failure.
  // A published article showing an image deleted meanwhile is refused by the database itself
  // (the articles_guard_live_media trigger), whatever the write: that refusal is the publish
  // rule's 422, not a failure.
  return retryTransactionConflicts(
    () => commitChange(options.oneStatement && !idempotentUnit() ? singleStatementDatabase : sqlDatabase, tenantId, withPurges, { afterCommit: () => articlesChanged([tenantId]) }),
    { what: options.what ?? 'article change' },
  ).catch((error: unknown) => {
    throw liveMediaRefusal(error) ?? error
  })
}
