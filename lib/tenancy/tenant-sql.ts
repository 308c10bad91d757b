import type pg from 'pg'
import { routedQuery } from '../db/read-routing.ts'
import { preparedNameOf } from '../db/prepared-names.ts'

export type ReadOptions = {
  /**
   * Run as a prepared statement: parsed once per connection, and after five runs PostgreSQL may
   * keep one generic plan for every value. Planning was most of a cold list's database work
   * (0.75 + 0.27 ms planning against 0.05 + 0.11 ms executing its two statements at 1,000,000
   * articles; articles has many indexes to weigh). It keeps the generic plan only when that is
   * costed no higher than the custom ones: so for the sum of kept counts (60 plans in 917 runs,
   * pg_stat_statements) and reads by id, but not for a page of one newsroom's articles, whose
   * generic plan is costed for an average newsroom's rows (the table's rows over its newsrooms)
   * and so higher, though its shape is the same: those are planned every run. Only for a
   * statement whose best plan is the same whatever its values: a generic plan for a rare tag or
   * word would walk the archive where a custom plan asks the tag's or the words' index.
   */
  prepare?: boolean
  /**
   * Prepared, and run with one generic plan kept per connection (lib/db/generic-plan-pool.ts):
   * for a statement PostgreSQL would plan on every run only because its generic plan is costed
   * for an average newsroom. Check its plan with EXPLAIN under plan_cache_mode=force_generic_plan first.
   */
  generic?: boolean
}

/**
 * Raw SQL reads confined to one tenant, for hot reads of many rows, where Prisma's row mapping
 * costs more than the query itself (bench/results: a page of 50 articles takes ~2.0 ms of CPU through
 * Prisma, ~0.6 ms through pg). The tenant is always `$1`, and a statement that does not filter
 * on `tenant_id = $1` is refused, so no caller can forget it. Writes stay with Prisma. Where a
 * read goes (primary or replica) is decided in lib/db/read-routing.ts.
 */
export function tenantSql(tenantId: string) {
  return {
    tenantId,
    async rows<Row>(text: string, values: unknown[] = [], options: ReadOptions = {}): Promise<Row[]> {
      return (await read(tenantId, text, values, options)).rows as Row[]
    },
    /** As rows, each row mapped by `mapRow` as it is read (a prepared statement's) and only that kept. */
    async mappedRows<Row, Mapped extends object>(text: string, values: unknown[], options: ReadOptions, mapRow: (row: Row) => Mapped): Promise<Mapped[]> {
      return (await read(tenantId, text, values, options, (row) => mapRow(row as Row) as Mapped & pg.QueryResultRow)).rows as Mapped[]
    },
  }
}

/** The one read of both: the tenant filter checked, the statement prepared by its text when asked. */
function read(tenantId: string, text: string, values: unknown[], { prepare = false, generic = false }: ReadOptions, mapRow?: (row: pg.QueryResultRow) => pg.QueryResultRow): Promise<pg.QueryResult> {
  if (!/\btenant_id = \$1\b/.test(text)) throw new Error(`tenantSql: a statement must filter on tenant_id = $1: ${text.slice(0, 80)}`)
  // Named by the text, so one text is prepared once per connection whoever runs it.
  const preparedName = prepare || generic ? preparedNameOf(text) : undefined
  return routedQuery(tenantId, text, [tenantId, ...values], preparedName, generic, mapRow)
}
