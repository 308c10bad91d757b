import { processSingleton } from '../process-singleton.ts'
import type { ReadOptions, tenantSql } from '../tenancy/tenant-sql.ts'
import { articleGeneration } from './article-totals.ts'
import { generationKeptSeconds } from '../generation-counter.ts'
import type { ListPosition } from './list-cursor.ts'

type Sql = ReturnType<typeof tenantSql>

/**
 * The changes feed's order (sort=updated_at): by the transaction that made each change, then
 * updated_at and id within one transaction (and among the articles written before the
 * change_sequence migration, which all stand at 0). articles_change_order_idx serves it.
 */
export const changeOrder = 'change_xid ASC, updated_at ASC, id ASC'

/**
 * Only changes below the horizon: every transaction below it that could write articles has
 * ended, so none can later appear before a row listed here, however late its writer commits;
 * a write transaction holds the feed back only while it runs. The function, and why it is exact
 * on a primary, a hot standby and the embedded store, is in the change_sequence migration.
 */
const settled = 'change_xid < articles_change_horizon()'

export type FeedPage<Row> = { rows: Row[]; lastChangeXid: string | null }

/**
 * A page of the feed after `page.after`, or at `page.offset` from its start. `updatedAfter` is
 * the request's updated_after filter, which `where` already holds.
 */
export async function changesFeedRows<Row>(
  sql: Sql,
  columns: string,
  where: string,
  values: unknown[],
  page: { limit: number; offset: number; after: ListPosition | null; updatedAfter?: Date; deep: boolean },
  options: ReadOptions,
): Promise<FeedPage<Row>> {
  const n = values.length + 1
  type FeedRow = Row & { changeXid: string }
  const feedColumns = `${columns}, change_xid::text AS "changeXid"`
  let rows: FeedRow[]
  if (page.after?.sort === 'updated_at') {
    rows = await sql.rows<FeedRow>(
      `SELECT ${feedColumns} FROM articles WHERE ${where} AND ${settled} AND (change_xid, updated_at, id) > ($${n + 1}::xid8, $${n + 2}, $${n + 3}) ORDER BY ${changeOrder} LIMIT $${n + 4}`,
      [...values, page.after.changeXid, page.after.updatedAt, page.after.id, page.limit],
      options,
    )
  } else {
    // Implied by updated_at >= updated_after, but a bound the index can start from: the articles
    // written before the change_sequence migration (all at 0) that changed earlier are skipped
    // instead of read (a sync page of the last hour at 1,000,000 articles: 108 ms -> 2 ms).
    const since = page.updatedAfter ? ` AND (change_xid, updated_at) >= ('0'::xid8, $${n + 3})` : ''
    const bounds = [...values, page.limit, page.offset, ...(page.updatedAfter ? [page.updatedAfter] : [])]
    const pageIds = `SELECT id FROM articles WHERE ${where} AND ${settled}${since} ORDER BY ${changeOrder} LIMIT $${n + 1} OFFSET $${n + 2}`
    if (!page.deep) {
      rows = await sql.rows<FeedRow>(`SELECT ${feedColumns} FROM articles WHERE ${where} AND ${settled}${since} ORDER BY ${changeOrder} LIMIT $${n + 1} OFFSET $${n + 2}`, bounds, options)
    } else {
      rows = await deepRows<FeedRow>(sql, feedColumns, where, values, since, page, options, pageIds, bounds)
    }
  }
  return { rows: rows.map(({ changeXid: _, ...row }) => row as Row), lastChangeXid: rows.at(-1)?.changeXid ?? null }
}

/** Where an offset of a list starts: the feed position of the row before it. */
type Mark = { changeXid: string; updatedAt: Date; id: string }
type ListMarks = { generation: string; expiresAt: number; at: Map<number, Mark> }
// Per process, one entry a list (newsroom, filters): its marks under one article generation.
const marksByList = processSingleton('changes feed marks', () => new Map<string, ListMarks>())
const maxLists = 512
const maxMarksPerList = 256

/**
 * A page deep in the feed by offset. Counting the rows skipped costs what the offset is (50,000
 * entries of articles_change_order_idx: ~6 ms of PostgreSQL's CPU at 1,000,000 articles, ten
 * times page 1), so where a page started, and where it ended, is kept as a mark: the same
 * offset asked again, or the next page of a client walking by offset, starts from its mark
 * as a cursor page does, and costs what page 1 costs.
 *
 * Exact because a mark is kept under the newsroom's article generation, which every committed
 * article change advances (a change moves an article to the feed's end, which shifts every later
 * offset), and because the horizon's moving on only adds rows after every row below it (their
 * transactions are newer), never before a mark: the rows before an offset stay the same rows.
 * A replica's horizon may be lower, but its rows are then a prefix of the primary's, so a page
 * after a mark past them is empty there, as its offset would be.
 */
async function deepRows<Row>(
  sql: Sql,
  feedColumns: string,
  where: string,
  values: unknown[],
  since: string,
  page: { limit: number; offset: number },
  options: ReadOptions,
  pageIds: string,
  bounds: unknown[],
): Promise<Row[]> {
  type FeedRow = Row & { changeXid: string; id: string; updatedAt: Date }
  const n = values.length + 1
  // Only the rows of the page are read: the rows skipped are counted in the index alone.
  const byIds = (ids: string) => `SELECT ${feedColumns} FROM articles WHERE tenant_id = $1 AND id IN (${ids}) ORDER BY ${changeOrder}`
  const generation = await articleGeneration(sql.tenantId)
  if (generation === null) return sql.rows<FeedRow>(byIds(pageIds), bounds, options)
  const listKey = `${sql.tenantId}\n${where}${since}\n${JSON.stringify(bounds.slice(values.length + 2))}\n${JSON.stringify(values)}`
  let marks = marksByList.get(listKey)
  // Marks end as everything kept under a generation does (generationKeptSeconds): a lost advance
  // leaves a page wrong that long at most, not until the newsroom's next write.
  if (!marks || marks.generation !== generation || marks.expiresAt <= Date.now()) {
    if (!marks && marksByList.size >= maxLists) marksByList.delete(marksByList.keys().next().value!)
    marks = { generation, expiresAt: Date.now() + generationKeptSeconds * 1000, at: new Map() }
    marksByList.set(listKey, marks)
  }
  let nearest: [number, Mark] | null = null
  for (const entry of marks.at) if (entry[0] <= page.offset && (!nearest || entry[0] > nearest[0])) nearest = entry
  let rows: FeedRow[]
  if (nearest) {
    const [at, mark] = nearest
    // The mark's bounds follow since's, if any (a parameter no statement names has no type).
    const sinceBound = bounds.slice(values.length + 2)
    const m = n + 3 + sinceBound.length
    const afterMark = `SELECT id FROM articles WHERE ${where} AND ${settled}${since} AND (change_xid, updated_at, id) > ($${m}::xid8, $${m + 1}, $${m + 2}) ORDER BY ${changeOrder} LIMIT $${n + 1} OFFSET $${n + 2}`
    rows = await sql.rows<FeedRow>(byIds(afterMark), [...values, page.limit, page.offset - at, ...sinceBound, mark.changeXid, mark.updatedAt, mark.id], options)
  } else {
    // One row more, before the page: where it is is the mark of this offset.
    const withBefore = await sql.rows<FeedRow>(byIds(pageIds), [...values, page.limit + 1, page.offset - 1, ...bounds.slice(values.length + 2)], options)
    const before = withBefore.shift()
    if (before) keep(marks, page.offset, before)
    rows = withBefore
  }
  const last = rows.at(-1)
  if (last) keep(marks, page.offset + rows.length, last)
  return rows
}

function keep(marks: ListMarks, offset: number, row: { changeXid: string; updatedAt: Date; id: string }): void {
  if (!marks.at.has(offset) && marks.at.size >= maxMarksPerList) marks.at.delete(marks.at.keys().next().value!)
  marks.at.set(offset, { changeXid: row.changeXid, updatedAt: row.updatedAt, id: row.id })
}
