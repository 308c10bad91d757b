import { routedQuery } from '../db/read-routing.ts'

/**
 * Raw SQL reads confined to one tenant, for hot reads of many rows, where Prisma's row mapping
 * costs more than the query itself (bench/results: a page of 50 articles takes ~2.0 ms of CPU through
 * Prisma, ~0.6 ms through pg). The tenant is always `$1`, and a statement that does not filter
 * on `tenant_id = $1` is refused, so no caller can forget it. Writes stay with Prisma. Where a
 * read goes (primary or replica) is decided in lib/db/read-routing.ts.
 */
export function tenantSql(tenantId: string) {
  return {
    async rows<Row>(text: string, values: unknown[] = []): Promise<Row[]> {
      if (!/\btenant_id = \$1\b/.test(text)) throw new Error(`tenantSql: a statement must filter on tenant_id = $1: ${text.slice(0, 80)}`)
      const result = await routedQuery(tenantId, text, [tenantId, ...values])
      return result.rows as Row[]
    },
  }
}
