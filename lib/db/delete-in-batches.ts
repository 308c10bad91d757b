import type pg from 'pg'

export type SqlRunner = Pick<pg.Pool | pg.PoolClient, 'query'>

/**
 * Runs a DELETE whose last parameter is its LIMIT until it deletes fewer rows than that, so a
 * prune of a large table holds its locks and writes its WAL in short steps beside live traffic.
 * Returns how many rows it deleted, or the sum of what `weigh` makes of each step's result
 * (a DELETE … RETURNING of what each row held).
 */
export async function deleteInBatches(
  database: SqlRunner,
  statement: string,
  parameters: unknown[],
  batchSize: number,
  weigh: (result: pg.QueryResult) => number = (result) => result.rowCount ?? 0,
): Promise<number> {
  let deleted = 0
  for (;;) {
    const result = await database.query(statement, [...parameters, batchSize])
    deleted += weigh(result)
    if ((result.rowCount ?? 0) < batchSize) return deleted
  }
}
