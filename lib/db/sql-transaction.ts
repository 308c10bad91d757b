import { Prisma } from './generated/client.ts'
import { sqlPool } from './client.ts'
import { readOnlyServer, retryThroughFailover } from './failover-retry.ts'
import { preparedNameOf } from './prepared-names.ts'
import { preparedQuery, preparedQueryOn, stalePreparedPlan } from './prepared-query.ts'

/**
 * The part of a transaction that raw SQL needs: Prisma's tagged-template `$queryRaw` and
 * `$executeRaw`. A Prisma transaction has it, and so does `sqlTransaction`, which runs the
 * same statements on a pg connection without Prisma's interactive-transaction machinery
 * (bench: that machinery cost more CPU per write than the statements it carried).
 */
export type SqlTransaction = {
  /** As Prisma's: `Result` is the whole answer, the rows' array. */
  $queryRaw<Result = unknown>(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<Result>
  $executeRaw(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<number>
  /**
   * As $queryRaw, run as a statement prepared by its text (lib/db/prepared-names.ts, prepared-query.ts): parsed once
   * per connection, and planned once when PostgreSQL keeps a generic plan. For the hot writes'
   * statements, whose texts are few (writeArticle's); a Prisma transaction has no such thing.
   */
  $queryPrepared?<Result = unknown>(query: Prisma.Sql): Promise<Result>
}

function statement(query: TemplateStringsArray | Prisma.Sql, values: unknown[]): Prisma.Sql {
  return query instanceof Prisma.Sql ? query : Prisma.sql(query, ...values)
}

/**
 * Runs `work` in one transaction on a connection of the shared pool; rolls back if it throws.
 * A transaction the database switch (failover) broke before its COMMIT is run again
 * (lib/db/failover-retry.ts); one broken at COMMIT is not, since it may have committed.
 */
export function sqlTransaction<Result>(work: (tx: SqlTransaction) => Promise<Result>): Promise<Result> {
  return retryThroughFailover((progress) => sqlTransactionOnce(work, progress), 'change')
}

async function sqlTransactionOnce<Result>(work: (tx: SqlTransaction) => Promise<Result>, progress: { committing: boolean }): Promise<Result> {
  const client = await sqlPool.connect()
  const tx: SqlTransaction = {
    async $queryRaw<Result>(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]) {
      const sql = statement(query, values)
      return (await client.query(sql.text, sql.values)).rows as Result
    },
    async $executeRaw(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]) {
      const sql = statement(query, values)
      return (await client.query(sql.text, sql.values)).rowCount ?? 0
    },
    async $queryPrepared<Result>(sql: Prisma.Sql) {
      return (await preparedQueryOn(sqlPool, client, preparedNameOf(sql.text), sql.text, sql.values)).rows as Result
    },
  }
  let broken: Error | undefined
  // A checked-out connection the server cuts (a restart, a failover) emits 'error'; unheard,
  // that would end the process. The query in flight fails too, so the request answers 503.
  const onError = (error: Error) => (broken = error)
  client.on('error', onError)
  try {
    await client.query('BEGIN')
    const result = await work(tx)
    progress.committing = true
    await client.query('COMMIT')
    return result
  } catch (error) {
    // A server that refused a write as read-only is a demoted (or not yet promoted) primary:
    // this connection will not become writable, so it is dropped and the retry connects anew.
    if (readOnlyServer(error)) broken = error as Error
    // A prepared statement a migration made stale fails on this connection until it is dropped
    // (prepared-query.ts); nothing was committed, and retryThroughFailover runs the change again.
    if (stalePreparedPlan(error)) broken = error as Error
    await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError))
    throw error
  } finally {
    client.off('error', onError)
    // A connection that broke, or could not even roll back, is not given to the next caller.
    client.release(broken)
  }
}

/** The pool as a transactional database for commitChange: raw-SQL changes without Prisma. */
export const sqlDatabase = { $transaction: sqlTransaction }

/**
 * For a change that is one statement (PostgreSQL runs a statement atomically on its own): no
 * BEGIN and COMMIT round trips, and the connection is held for one round trip. A second
 * statement is refused, since it would not commit or fail with the first.
 */
export const singleStatementDatabase = {
  async $transaction<Result>(work: (tx: SqlTransaction) => Promise<Result>): Promise<Result> {
    let used = false
    const once = (query: TemplateStringsArray | Prisma.Sql, values: unknown[], prepared = false) => {
      if (used) throw new Error('singleStatementDatabase runs one statement per change; use sqlDatabase for more.')
      used = true
      const sql = statement(query, values)
      // Prepared through preparedQuery, whose names are the connection's own (the embedded store serves every connection from one session).
      return prepared ? preparedQuery(sqlPool, preparedNameOf(sql.text), sql.text, sql.values) : sqlPool.query(sql.text, sql.values)
    }
    return work({
      async $queryRaw<Rows>(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]) {
        return (await once(query, values)).rows as Rows
      },
      async $executeRaw(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]) {
        return (await once(query, values)).rowCount ?? 0
      },
      async $queryPrepared<Rows>(sql: Prisma.Sql) {
        return (await once(sql, [], true)).rows as Rows
      },
    })
  },
}
