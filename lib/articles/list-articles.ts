import { ValidationError } from '../errors.ts'
import { filterFingerprint } from '../signed-cursor.ts'
import { decodeListCursor, encodeListCursor, type ListPosition, type ListSort } from './list-cursor.ts'
import { tenantSql, type ReadOptions } from '../tenancy/tenant-sql.ts'
import { articleColumns, articleRecordColumns, toArticle, type StoredArticle, type StoredArticleRecord } from './article-rows.ts'
import type { ListArticlesFilter, ListArticlesQuery } from './article-schemas.ts'
import { articleTotal } from './article-totals.ts'
import { bucketTotalExpression, countedFromBuckets, countedFromTags, countFromBuckets, countFromTags } from './article-counts.ts'
import { toPage, type Page } from '../pagination.ts'
import { matchRecord, searchArticleKeyPage, searchArticlePage, searchCondition, type SearchedArticle, type SearchedKey } from './search-articles.ts'
import { assertCan } from '../auth/permissions.ts'
import { changesFeedRows } from './changes-feed.ts'
import { genericPlanFilter, planStableFilter } from './plan-stable-filter.ts'
import { articleKeyColumns, ChangedWhileReadByKey, readByKey, recordOfRow, recordsOfArticles, recordsOfRows, renderedRecords, tallyPage, type ArticleKey } from './rendered-records.ts'
import type { RenderedJson } from '../rendered-json.ts'
import type { Actor } from '../tenancy/actor.ts'
import { instantAtOrAfter } from '../instant-bound.ts'

export type ArticlePage = Page<SearchedArticle>

/**
 * The newest publications first, unpublished articles last; created_at and id break ties so
 * that walking the pages returns every article exactly once. articles_list_order_idx (and
 * articles_status_order_idx, after the status) serve exactly this order.
 */
const listOrder = 'published_at DESC NULLS LAST, created_at DESC, id DESC'

export const deepOffset = 1_000

type ListFilter = ListArticlesFilter

/**
 * The filters as SQL conditions (combined with AND), their values numbered after the tenant's $1,
 * and `listOrderWhere`, those of them that articles_list_order_idx serves as its range (the
 * tenant and the publication bounds).
 */
function listConditions(filter: ListFilter): { where: string; listOrderWhere: string; values: unknown[] } {
  const conditions = ['tenant_id = $1']
  const listOrderConditions = ['tenant_id = $1']
  const values: unknown[] = []
  const add = (condition: (placeholder: string) => string, value: unknown, inListOrder = false) => {
    values.push(value)
    conditions.push(condition(`$${values.length + 1}`))
    if (inListOrder) listOrderConditions.push(conditions.at(-1)!)
  }
  // The database spells states as the API does ('in-review').
  if (filter.status) add((p) => `status = ${p}::"ArticleStatus"`, filter.status)
  if (filter.author_id) add((p) => `author_id = ${p}`, filter.author_id)
  if (filter.department_id) add((p) => `department_id = ${p}`, filter.department_id)
  // Any spelling of the tag (articles_tags_folded_idx serves it).
  if (filter.tag) add((p) => `article_tags_folded(tags) @> ARRAY[lower(${p})]::text[]`, filter.tag)
  if (filter.published_after) add((p) => `published_at >= ${p}`, instantAtOrAfter(filter.published_after), true)
  if (filter.published_before) add((p) => `published_at < ${p}`, instantAtOrAfter(filter.published_before), true)
  if (filter.updated_after) add((p) => `updated_at >= ${p}`, instantAtOrAfter(filter.updated_after))
  if (filter.updated_before) add((p) => `updated_at < ${p}`, instantAtOrAfter(filter.updated_before))
  if (filter.q !== undefined) add(searchCondition, filter.q)
  return { where: conditions.join(' AND '), listOrderWhere: listOrderConditions.join(' AND '), values }
}

export async function listArticles(actor: Actor, query: ListArticlesQuery): Promise<ArticlePage> {
  assertCan(actor, 'articles:read')
  if (ranksByRelevance(query)) return relevancePage(actor.tenant.id, query)
  const page = await orderedPage<StoredArticle>(actor.tenant.id, query, articleColumns)
  return { ...page, items: page.items.map(toArticle) }
}

/**
 * The page as the API shows it, each item its record: listArticles' page, but each record comes
 * as JSON bytes kept from an earlier page where the article has not changed since
 * (rendered-records.ts), and while most are found kept the page read names the articles
 * without their bodies (and a search's snippets may be kept ones, kept-snippets.ts).
 */
export async function listArticleRecords(actor: Actor, query: ListArticlesQuery): Promise<Page<RenderedJson>> {
  assertCan(actor, 'articles:read')
  const tenantId = actor.tenant.id
  if (readByKey()) {
    const page = await pageByKey(tenantId, query)
    if (page) return page
  }
  if (ranksByRelevance(query)) {
    const page = await relevancePage(tenantId, query)
    return { ...page, items: recordsOfArticles(tenantId, page.items, (item) => item.match && { match: matchRecord(item.match) }) }
  }
  if (pagedWithTotal(query)) {
    // Each row rendered as it is read, and only its key and record kept (pageWithTotal). What a
    // row says is kept in it, not beside it: a read that fails on the replica runs again on the
    // primary, and only the attempt that answered counts.
    const page = await orderedPage<ArticleKey & { record: RenderedJson; found: boolean }>(tenantId, query, articleRecordColumns, {
      totalWithPage: true,
      mapRow: (row: StoredArticleRecord) => {
        const shown = recordOfRow(tenantId, row)
        return { id: row.id, version: row.version, updatedAt: row.updatedAt, publishedAt: row.publishedAt, createdAt: row.createdAt, record: shown.record, found: shown.found }
      },
    })
    tallyPage(page.items.length, page.items.filter((item) => item.found).length)
    return { ...page, items: page.items.map((item) => item.record) }
  }
  const page = await orderedPage<StoredArticleRecord>(tenantId, query, articleRecordColumns)
  return { ...page, items: recordsOfRows(tenantId, page.items) }
}

/** The page read by key, or null when an article changed between its reads (read it whole then). */
async function pageByKey(tenantId: string, query: ListArticlesQuery): Promise<Page<RenderedJson> | null> {
  const sql = tenantSql(tenantId)
  try {
    if (ranksByRelevance(query)) {
      const page = await relevanceKeyPage(tenantId, query)
      return { ...page, items: await renderedRecords(sql, tenantId, page.items, (item) => ({ match: matchRecord(item.match) })) }
    }
    const page = await orderedPage<ArticleKey>(tenantId, query, articleKeyColumns, { totalWithPage: true })
    return { ...page, items: await renderedRecords(sql, tenantId, page.items) }
  } catch (error) {
    if (error instanceof ChangedWhileReadByKey) return null
    throw error
  }
}

/** Relevance is a score of this query, not a position in an index: its pages go by offset. */
function ranksByRelevance(query: ListArticlesQuery): boolean {
  return query.q !== undefined && query.sort === undefined
}

async function relevancePage(tenantId: string, query: ListArticlesQuery): Promise<ArticlePage> {
  const { input, page } = relevanceInput(query)
  return { ...(await searchArticlePage(tenantId, input, page)), nextCursor: null }
}

async function relevanceKeyPage(tenantId: string, query: ListArticlesQuery): Promise<Page<SearchedKey>> {
  const { input, page } = relevanceInput(query)
  return { ...(await searchArticleKeyPage(tenantId, input, page)), nextCursor: null }
}

function relevanceInput(query: ListArticlesQuery) {
  const { limit, offset, cursor, sort: _, ...filter } = query
  if (cursor !== undefined) throw new ValidationError([{ field: 'cursor', message: 'Search results in relevance order page by offset; send sort=published_at or sort=updated_at to page a search by cursor.' }])
  const { where, listOrderWhere, values } = listConditions(filter)
  // listConditions adds q last.
  return { input: { where, listOrderWhere, values, qPlaceholder: `$${values.length + 1}`, listOrder, filter }, page: { limit, offset } }
}

/**
 * A page in list or change order, each row read with `columns` (all of them, or the articles' keys).
 * `totalWithPage`: where the total is summed from the kept counts, it may be read by the page's
 * own statement, in a column of each row (whoever shows the rows then ignores it).
 */
async function orderedPage<Row extends ArticleKey>(tenantId: string, query: ListArticlesQuery, columns: string, { totalWithPage = false, mapRow }: { totalWithPage?: boolean; mapRow?: (row: StoredArticleRecord) => Row } = {}): Promise<Page<Row>> {
  const { limit, offset, cursor, sort: requestedSort, ...filter } = query
  const sort = requestedSort ?? 'published_at'
  const sql = tenantSql(tenantId)
  const { where, values } = listConditions(filter)
  const fingerprint = filterFingerprint(filter)
  const after = cursor === undefined ? null : decodeListCursor(cursor, { tenantId, sort, filter: fingerprint })
  if (after && offset > 0) throw new ValidationError([{ field: 'offset', message: 'Send either offset or cursor, not both: the cursor already says where the page starts.' }])

  // Status, department and publication range, and a tag alone or with a status, are summed from
  // the kept counts, exact and cheap for a filter never seen before; any other filter is counted
  // once per change (article-totals.ts).
  const prepare = planStableFilter(filter)
  // A page so filtered is planned on every run otherwise (0.11 ms of a cold list's 0.85 ms page
  // statement at 1,000,000 articles); its generic plan is the same index range.
  const generic = genericPlanFilter(filter, sort)
  if (totalWithPage && pagedWithTotal(query)) {
    return pageWithTotal<Row>({ sql, columns, where, values, options: { prepare, generic } }, filter, { tenantId, fingerprint, limit, offset, mapRow })
  }
  const total = countedFromBuckets(filter)
    ? countFromBuckets(sql, filter, { prepare })
    : countedFromTags(filter)
      ? countFromTags(sql, filter, { prepare: true })
      : articleTotal(tenantId, filter, async () => {
          const [counted] = await sql.rows<{ total: number }>(`SELECT count(*)::int AS total FROM articles WHERE ${where}`, values)
          return counted!.total
        })
  const read: PageRead = { sql, columns, where, values, options: { prepare, generic } }
  const pageRows =
    sort === 'updated_at'
      ? changesFeedRows<Row>(sql, columns, where, values, { limit, offset, after, updatedAfter: filter.updated_after ? instantAtOrAfter(filter.updated_after) : undefined, deep: offset >= deepOffset }, { prepare, generic })
      : (after?.sort === 'published_at' ? publishedOrderRowsAfter<Row>(read, limit, after) : publishedOrderRows<Row>(read, limit, offset)).then((rows) => ({
          rows,
          lastChangeXid: null,
        }))
  // Together, so that when the database fails both failures are handled (a lone rejected promise would end the process).
  const [{ rows, lastChangeXid }, counted] = await Promise.all([pageRows, total])
  const start = after ? after.position : offset
  const page = toPage(rows, counted, { limit, offset: start })
  return { ...page, nextCursor: nextCursor(tenantId, fingerprint, sort, page, after, lastChangeXid) }
}

/** Whether a page is read with its total (pageWithTotal): in list order near the top, its total summed from the kept counts. */
function pagedWithTotal(query: ListArticlesQuery): boolean {
  const { limit: _limit, offset, cursor, sort, ...filter } = query
  return (sort ?? 'published_at') === 'published_at' && cursor === undefined && offset < deepOffset && countedFromBuckets(filter)
}

/**
 * A page in list order near the top, and its total summed from the kept counts, read by one
 * statement: the sum is the statement's uncorrelated subquery, run once, its value a column of
 * each row. Why: a cold list page was two statements at once on two connections, and sending a
 * statement (the write to PostgreSQL's socket, its wake-up) was 11% of the service's CPU in a
 * profile at 1,000,000 articles; the baseline sends one. Page and total now share one snapshot.
 * A page with no rows (past the end) carries no total, which is then read alone.
 */
async function pageWithTotal<Row extends ArticleKey>(
  read: PageRead,
  filter: ListFilter,
  { tenantId, fingerprint, limit, offset, mapRow }: { tenantId: string; fingerprint: string; limit: number; offset: number; mapRow?: (row: StoredArticleRecord) => Row },
): Promise<Page<Row>> {
  const { sql, columns, where, values, options } = read
  const statementValues: unknown[] = [...values, limit, offset]
  const totalSum = bucketTotalExpression(filter, (value) => {
    statementValues.push(value)
    return `$${statementValues.length + 1}`
  })
  const page = values.length + 2
  const text = `SELECT ${columns}, (${totalSum ?? '0'})::text AS "listTotal" FROM articles WHERE ${where} ORDER BY ${listOrder} LIMIT $${page} OFFSET $${page + 1}`
  // Each row kept as mapRow makes it, as it is read, with the total beside it: read off the
  // rows the answering attempt returned (a replica's failed attempt is run again on the primary).
  const rows: (Row & { listTotal: string })[] = mapRow
    ? await sql.mappedRows(text, statementValues, options, (row: StoredArticleRecord & { listTotal: string }) => Object.assign(mapRow(row), { listTotal: row.listTotal }))
    : await sql.rows<Row & { listTotal: string }>(text, statementValues, options)
  const listTotal = rows[0]?.listTotal
  // An empty first page's total is 0 whatever the count (toPage).
  const counted = rows.length > 0 ? Number(listTotal) : offset === 0 ? 0 : await countFromBuckets(sql, filter, { prepare: options.prepare })
  const listed = toPage<Row>(rows, counted, { limit, offset })
  return { ...listed, nextCursor: nextCursor(tenantId, fingerprint, 'published_at', listed, null, null) }
}

/** Where the next page starts; see next_cursor in the reference for when it is null. */
function nextCursor(tenantId: string, fingerprint: string, sort: ListSort, page: Page<ArticleKey>, after: ListPosition | null, lastChangeXid: string | null): string | null {
  const last = page.items.at(-1)
  const position = page.offset + page.items.length
  if (!last) return sort === 'updated_at' && after ? encodeListCursor(tenantId, fingerprint, after) : null
  if (sort === 'updated_at') return encodeListCursor(tenantId, fingerprint, { sort, changeXid: lastChangeXid!, updatedAt: last.updatedAt, id: last.id, position })
  if (page.nextOffset === null) return null
  return encodeListCursor(tenantId, fingerprint, { sort, publishedAt: last.publishedAt, createdAt: last.createdAt, id: last.id, position })
}

type Sql = ReturnType<typeof tenantSql>

/** A page statement's parts: where to read, which columns, the filter's conditions and values. */
type PageRead = { sql: Sql; columns: string; where: string; values: unknown[]; options: ReadOptions }

async function publishedOrderRows<Row>({ sql, columns, where, values, options }: PageRead, limit: number, offset: number): Promise<Row[]> {
  const page = values.length + 2
  const pageIds = `SELECT id FROM articles WHERE ${where} ORDER BY ${listOrder} LIMIT $${page} OFFSET $${page + 1}`
  // Deep in the list, the rows skipped are found through the list-order index alone and only
  // the page's rows are read (offset 50,000 of 100,000: 200 ms -> 40 ms); near the top, the
  // plain query is cheaper (0.25 ms against 0.65 ms).
  const pageQuery =
    offset >= deepOffset
      ? `SELECT ${columns} FROM articles WHERE tenant_id = $1 AND id IN (${pageIds}) ORDER BY ${listOrder}`
      : `SELECT ${columns} FROM articles WHERE ${where} ORDER BY ${listOrder} LIMIT $${page} OFFSET $${page + 1}`
  return sql.rows<Row>(pageQuery, [...values, limit, offset], options)
}

/**
 * The page after a cursor in published order, by position in the list-order index rather than by
 * counting: published rows after the cursor's key, then (once they run out) the unpublished ones,
 * which sort last.
 */
async function publishedOrderRowsAfter<Row>({ sql, columns, where, values, options }: PageRead, limit: number, after: ListPosition & { sort: 'published_at' }): Promise<Row[]> {
  const n = values.length + 1
  if (after.publishedAt === null) {
    return sql.rows<Row>(
      `SELECT ${columns} FROM articles WHERE ${where} AND published_at IS NULL AND (created_at, id) < ($${n + 1}, $${n + 2}) ORDER BY ${listOrder} LIMIT $${n + 3}`,
      [...values, after.createdAt, after.id, limit],
      options,
    )
  }
  const published = await sql.rows<Row>(
    `SELECT ${columns} FROM articles WHERE ${where} AND (published_at, created_at, id) < ($${n + 1}, $${n + 2}, $${n + 3}) ORDER BY ${listOrder} LIMIT $${n + 4}`,
    [...values, after.publishedAt, after.createdAt, after.id, limit],
    options,
  )
  if (published.length === limit) return published
  const unpublished = await sql.rows<Row>(
    `SELECT ${columns} FROM articles WHERE ${where} AND published_at IS NULL ORDER BY ${listOrder} LIMIT $${n + 1}`,
    [...values, limit - published.length],
    options,
  )
  return [...published, ...unpublished]
}
