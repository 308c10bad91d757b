import type pg from 'pg'

export type SqlRunner = Pick<pg.Pool | pg.PoolClient, 'query'>

/**
 * Runs a DELETE whose last parameter is its LIMIT until it deletes fewer rows than that, so a
 * prune of a large table holds its locks and writes its WAL in short steps beside live traffic.
 * Returns how many rows it deleted.
 */
export async function deleteInBatches(database: SqlRunner, statement: string, parameters: unknown[], batchSize: number): Promise<number> {
  let deleted = 0
  for (;;) {
    const result = await database.query(statement, [...parameters, batchSize])
    deleted += result.rowCount ?? 0
    if ((result.rowCount ?? 0) < batchSize) return deleted
  }
}
