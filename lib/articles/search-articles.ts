import pg from 'pg'
import type { Article } from '../db/generated/client.ts'
import { tenantSql } from '../tenancy/tenant-sql.ts'
import { toPage, type Page } from '../pagination.ts'
import { articleColumns, toArticle, type StoredArticle } from './article-rows.ts'
import type { ListArticlesFilter, ListArticlesQuery } from './article-schemas.ts'
import { toArticleRecord } from './article-record.ts'
import { planStableFilter } from './plan-stable-filter.ts'
import { articleKeyColumns, ChangedWhileReadByKey, type ArticleKey } from './rendered-records.ts'
import { keptSnippets, type MadeSnippet } from './kept-snippets.ts'

/** Where a match's words start and stop in a snippet: control characters no article text needs. */
export const matchStart = '\u0002'
export const matchStop = '\u0003'

export type ArticleMatch = { rank: number; snippet: string }
export type SearchedArticle = Article & { match?: ArticleMatch }
export type SearchedKey = ArticleKey & { match: ArticleMatch }

// The query, parsed once per statement (a scalar subquery is an InitPlan whose result the
// plan reuses), with the tenant's configuration, so the GIN index serves @@. Unwrapped, the
// language's subquery kept websearch_to_tsquery from being folded into a constant, and every
// match re-parsed the query twice, in the recheck and in ts_rank_cd: 12,544 matches of a
// phrase cost 305 ms in that heap scan, 35 ms once parsed once.
const searchQuery = (placeholder: string) => `(SELECT websearch_to_tsquery((SELECT search_language FROM tenants WHERE id = $1), ${placeholder}))`

/**
 * The condition that limits a list to the articles matching `q` (websearch syntax: "phrases", -exclusions, or).
 * The GIN index serves it; RUM was measured at 1,000,000 articles and not kept: 3.3-3.8× the
 * size (943 MB, 816 MB with published_at attached, against 251), no faster for a rare word, and
 * slower for a common phrase, whose matches it gathers before any LIMIT, ordered by published_at
 * or not (65-83 ms for the newest 501 against 7-16 ms for the list-order walk; bench/results/search-*.md).
 */
export function searchCondition(placeholder: string): string {
  return `search_vector @@ ${searchQuery(placeholder)}`
}

const snippetMinWords = 8
const headlineOptions = `StartSel=${matchStart}, StopSel=${matchStop}, MaxFragments=2, MaxWords=24, MinWords=${snippetMinWords}, FragmentDelimiter=" … "`

// Every word of the query (negated ones too) as one "any of these in the lede, the tags or the
// body" query: weights B and D of search_vector (the headline is A). The operands are taken
// from the parsed query's text form as they are, quotes and all, so none is parsed again.
const textWordsQuery = (placeholder: string) =>
  `(SELECT string_agg(operand[1] || ':BD', ' | ')::tsquery FROM regexp_matches(${searchQuery(placeholder)}::text, '(''(?:[^'']|'''')*'')', 'g') AS operand)`

/**
 * The text a row's snippet is made from. ts_headline parses and looks up every word of the text
 * it is given (lede and body: ~0.5 ms for 3.4 KB, 25 of the 35 ms of a page of 50 at
 * 1,000,000 articles); when none of the query's words is in the lede or the body (a match by
 * headline or tag), its snippet is the text's first MinWords words, unmarked, and those are the
 * lede's when the lede has more than MinWords space-separated pieces holding a letter or digit
 * and no `<` (each such piece is at least one word of the parser, and without `<` no token, a
 * tag, reaches past a space). Then the lede alone gives the same snippet, parsed in microseconds.
 * search_vector holds every word of that text: the body's are parsed from its (sanitised) HTML,
 * which gives the plain text's words and, for markup written as text (`&lt;b&gt;`), more;
 * tests/api/search-snippets.integration.test.ts compares both on both stores.
 */
function snippetSource(qPlaceholder: string): string {
  const ledeIsEnough = `strpos(matched.lede, '<') = 0 AND (SELECT count(*) FROM regexp_matches(matched.lede, '[^ ]*[A-Za-z0-9][^ ]*', 'g')) > ${snippetMinWords}`
  // Read again by id after the page's LIMIT: carried through the page's sort, the vector (or the
  // test) made the planner choose a parallel plan for a rare word (+5 ms of workers' start-up).
  const textHasWords = `(SELECT search_vector @@ ${textWordsQuery(qPlaceholder)} FROM articles AS again WHERE again.id = matched.id AND again.tenant_id = $1)`
  return `CASE WHEN ${ledeIsEnough} AND NOT ${textHasWords}
            THEN matched.lede ELSE concat_ws(' ', matched.lede, article_plain_text(matched.body)) END`
}


/** The rank window unless SEARCH_RANK_WINDOW says otherwise: four pages of 50, the reference's figure. */
export const defaultSearchRankWindow = 200

/**
 * How many of a search's newest matches relevance orders, and up to how many matches its
 * `total` is exact (SEARCH_RANK_WINDOW, defaultSearchRankWindow). Ranking and counting every
 * match cost in proportion to the archive (a phrase in one article of eight: 12,544 matches at
 * 100,000 articles, 125,000 at 1,000,000); the newest matches cost the same whatever its size,
 * and in proportion to the window: a common phrase walks ~7.4 articles per window row, each
 * read from the heap with its vector (3,706 rows, 7-12 ms of PostgreSQL for 500; 200 took its
 * PostgreSQL CPU a request from 13.7-15.2 ms to 6.9-9.6 in the same runs, the whole request
 * from 21.8 to 13.3 ms).
 */
export function searchRankWindow(): number {
  return Number(process.env.SEARCH_RANK_WINDOW ?? defaultSearchRankWindow)
}

/** How far back from the newest article the window's matches are looked for in list order before the index of words is asked instead. */
const walkRowsPerWindowRow = 40

/**
 * `listOrderWhere`: the conditions among `where` that articles_list_order_idx serves as its range
 * (the tenant, publication bounds). `keysOnly`: the page's rows name their articles
 * (articleKeyColumns) instead of carrying every column; their snippets may be kept ones (kept-snippets.ts).
 */
type SearchPageInput = { where: string; listOrderWhere: string; values: unknown[]; qPlaceholder: string; listOrder: string; filter: ListFilter; keysOnly?: boolean }
type ListFilter = ListArticlesFilter
/** A row of a search page: the article's columns, or only its key when the page is read keysOnly. */
type MatchRow = (StoredArticle | ArticleKey) & { matchRank: number; matchSnippet: string; position: string }

/**
 * A page of the articles matching `q` and the other filters (`where`, `values`, as the list
 * builds them, `q` among them at `qPlaceholder`, last). The order: the newest
 * searchRankWindow() matches (in the list's order) by relevance (ts_rank_cd, so words close
 * together rank higher, headline over lede and tags over body; ties in the list's order), then
 * every older match in the list's order. So a search that matches at most that many articles
 * is ordered by relevance throughout, and one that matches more costs what its newest matches
 * cost. Each item carries its rank and a snippet of lede and body text with the matched words
 * between matchStart and matchStop; only the page's rows are highlighted.
 *
 * `total` is exact up to the window; beyond it, when the window was found among the newest
 * articles, it is an estimate (totalIsEstimate): the window's share of the articles walked,
 * times the planner's estimate of the articles the other filters leave.
 */
export async function searchArticlePage(tenantId: string, input: SearchPageInput, page: Pick<ListArticlesQuery, 'limit' | 'offset'>): Promise<Page<SearchedArticle>> {
  return (await searchPage(tenantId, { ...input, keysOnly: false }, page)) as Page<SearchedArticle>
}

/** searchArticlePage's page with each article named by its key (rendered-records.ts shows its record), not read whole. */
export async function searchArticleKeyPage(tenantId: string, input: SearchPageInput, page: Pick<ListArticlesQuery, 'limit' | 'offset'>): Promise<Page<SearchedKey>> {
  return (await searchPage(tenantId, { ...input, keysOnly: true }, page)) as Page<SearchedKey>
}

/** A page of either shape: `input.keysOnly` decides which (pageOf). */
async function searchPage(tenantId: string, input: SearchPageInput, { limit, offset }: Pick<ListArticlesQuery, 'limit' | 'offset'>): Promise<Page<SearchedArticle | SearchedKey>> {
  const sql = tenantSql(tenantId)
  const { where, listOrder } = input
  const window = searchRankWindow()
  // A common query fills the window from the newest articles: found by the walk alone, it skips
  // the bounded count, whose bitmap of the index of words holds every match in the archive
  // (137,536 for a phrase at 1,000,000 articles: 64 ms, more than the walk and the page together).
  const { common, found: walked } = await walkIfCommon(sql, input, window, { limit, offset })
  if (walked) return windowPage(sql, input, walked, { limit, offset })
  // The matches counted up to one past the window and, when the window holds them all, ranked
  // all (the count is exact then): one statement, the page skipped when the count passes the window.
  const { rows, boundedMatches } = await readMatchRows(sql, input, { where, order: `rank DESC, ${listOrder}`, limit, offset, extra: [window + 1], bounded: true })
  if (boundedMatches! <= window) return pageOf(input, rows, boundedMatches!, { limit, offset })

  // A walk already tried and fell short: the index of words finds the newest matches.
  return windowPage(sql, input, common ? await indexedNewestMatches(sql, input, window) : await newestMatches(sql, input, window, { limit, offset }), { limit, offset })
}

/** A page of a search matching more than the window: its newest matches `found` by relevance, then the older ones in list order. */
async function windowPage(sql: Sql, input: SearchPageInput, found: NewestMatches, { limit, offset }: { limit: number; offset: number }): Promise<Page<SearchedArticle | SearchedKey>> {
  const { where, values, listOrder } = input
  const window = searchRankWindow()
  const n = values.length + 1
  // The window's rows by id and the other filters: they are matches already, and asking the
  // index of words again would build its bitmap of every match (45 ms of the 86 at 1,000,000 articles).
  // The window's part of the page: the walk read it already; found by the index, it is read by id.
  const inWindow = windowSlice({ limit, offset }, window)
  const ranked = inWindow.limit === 0 ? [] : found.walkedPage ? await rankedPage(sql, input, found.walkedPage) : await matchRows(sql, input, { where: `${otherFiltersOf(input) ?? where} AND id = ANY($${n + 1}::text[])`, extra: [found.ids], order: `rank DESC, ${listOrder}`, ...inWindow })
  // Past the window the order is the list's, so position p there is position p of the list of matches.
  const restOffset = Math.max(offset, window)
  const rest = offset + limit > window ? await matchRows(sql, input, { where, order: listOrder, limit: offset + limit - restOffset, offset: restOffset }) : []
  const items = [...ranked, ...rest]
  if (found.estimated && items.length === 0) {
    // Past the last match, where a client walking every page ends: say exactly how many there were.
    const [counted] = await sql.rows<{ total: number }>(`SELECT count(*)::int AS total FROM articles WHERE ${where}`, values)
    return pageOf(input, items, counted!.total, { limit, offset })
  }
  return pageOf(input, items, found.total, { limit, offset }, found.estimated)
}

/**
 * The window's newest matches: found by the index of words, their ids in list order (`ids`); found
 * by the walk, only the page's part of the window, ranked (`walkedPage`, walkedRows).
 */
type NewestMatches = { ids: string[]; walkedPage?: undefined; total: number; estimated: boolean } | { ids?: undefined; walkedPage: WalkedPageRow[]; total: number; estimated: boolean }

/** The part of the window a page shows, when the window is walked (offset and limit within it; none past it). */
function windowSlice({ limit, offset }: { limit: number; offset: number }, window: number): { limit: number; offset: number } {
  return offset >= window ? { limit: 0, offset: 0 } : { limit: Math.min(limit, window - offset), offset }
}

/**
 * A page of the window as the walk ranked it (by rank, ties in list order, as `rank DESC,
 * listOrder` orders them), and only the page's rows read again, for their snippets (reading a
 * window of 500 again cost 3-7 ms).
 */
async function rankedPage(sql: Sql, input: SearchPageInput, onPage: WalkedPageRow[]): Promise<MatchRow[]> {
  if (onPage.length === 0) return []
  // By key, the walk named the page's articles already (in its own snapshot): no statement
  // reads them again, only their snippets, where not kept.
  if (input.keysOnly) return withSnippets(sql, input, onPage.map((row, position) => ({ ...articleKeyOf(row as WalkedKey), matchRank: row.rank, position: String(position + 1) })), onPage[0]!.searchLanguage!)
  const pageIds = onPage.map((match) => match.id)
  const p = input.values.length + 2
  // Read by id (the primary key's index whatever the ids): one plan for every value.
  return matchRows(sql, input, { where: `${otherFiltersOf(input) ?? input.where} AND id = ANY($${p}::text[])`, extra: [pageIds], order: `array_position($${p}::text[], id)`, limit: pageIds.length, offset: 0, prepare: true })
}

/** The filters other than q (listConditions adds q last), or null when `where` is not built so. */
function otherFiltersOf({ where, qPlaceholder }: SearchPageInput): string | null {
  const qCondition = ` AND ${searchCondition(qPlaceholder)}`
  return where.endsWith(qCondition) ? where.slice(0, -qCondition.length) : null
}

/**
 * Whether the newsroom's newest `window` articles hold enough matches (of q and the other
 * filters) for the walk to fill the window within its walkRowsPerWindowRow × window articles
 * (one in walkRowsPerWindowRow of them), and when they do, the walk (walkNewestMatches): one
 * statement, the probe gating the walk. The probe reads exactly those articles, through
 * articles_list_order_idx, whatever the filters (1 ms at 1,000,000 articles), so a rare word, or
 * a filter that leaves few recent articles, goes to the bounded count without a walk. The two
 * were two statements; one round trip fewer took a common phrase's page from four to three.
 */
async function walkIfCommon(sql: Sql, input: SearchPageInput, window: number, page: { limit: number; offset: number }): Promise<{ common: boolean; found: NewestMatches | null }> {
  if (otherFiltersOf(input) === null) return { common: false, found: null }
  const { where, values, listOrder } = input
  const probeLimit = `$${values.length + 4}`
  // An uncorrelated condition: PostgreSQL runs it once, first, and skips the walk when it fails.
  const probe = `(SELECT count(*) FROM (
       SELECT * FROM articles WHERE tenant_id = $1 ORDER BY ${listOrder} LIMIT ${probeLimit}
     ) probed WHERE ${where}) * ${walkRowsPerWindowRow} >= ${probeLimit}`
  const walked = await walkedRows(sql, input, window, page, { gate: probe, extra: [window] })
  // The probe's matches are among the walk's (they are newer than any article it skips), so a
  // probe that passed makes the walk find a match: none means the probe failed.
  return { common: walked.matches > 0, found: await foundByWalk(sql, input, window, walked) }
}

/**
 * The newest `window` matches walked in list order from the newest article (the list-order
 * index; it stops one match past the window), when more than the window are within
 * walkRowsPerWindowRow × window articles: then with an estimated total. Else null.
 */
async function walkNewestMatches(sql: Sql, input: SearchPageInput, window: number, page: { limit: number; offset: number }): Promise<NewestMatches | null> {
  if (otherFiltersOf(input) === null) return null
  return foundByWalk(sql, input, window, await walkedRows(sql, input, window, page, { gate: null, extra: [] }))
}

/** A row of the walk's page: an article of the window the page shows, its rank, and for a page read by key its key (WalkedKey). */
type WalkedPageRow = { id: string; rank: number } & Partial<WalkedKey>
/**
 * What the walk found: how many matches (up to one past the window), how many articles it walked
 * to the window's last one, and the page's part of the window, ranked.
 */
type Walked = { matches: number; windowWalked: number | null; page: WalkedPageRow[] }
/**
 * An article's key as the walk read it, its times as PostgreSQL's text: only the page's few are
 * made Dates (by the driver's own parser, so equal to a Date the driver read), not the window's 200.
 */
type WalkedKey = { id: string; version: number; updatedAt: string; publishedAt: string | null; createdAt: string; searchLanguage: string }

const parseTimestamp = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ) as (text: string) => Date

function articleKeyOf(walked: WalkedKey): ArticleKey {
  return { id: walked.id, version: walked.version, updatedAt: parseTimestamp(walked.updatedAt), publishedAt: walked.publishedAt === null ? null : parseTimestamp(walked.publishedAt), createdAt: parseTimestamp(walked.createdAt) }
}

// What a walk for a page read by key adds to each row: the article's key and the newsroom's search language.
const walkedKeyColumns = `, version, updated_at::text AS "updatedAt", published_at::text AS "publishedAt", created_at::text AS "createdAt", (SELECT search_language::text FROM tenants WHERE id = $1) AS "searchLanguage"`

/**
 * The walk's statement: up to window + 1 matches with their rank and how many articles were
 * walked to each, when `gate` (a condition on the values and `extra`, after the walk's own) holds;
 * of those it returns how many there were, the articles walked to the window's last, and only the
 * page's part of the window (windowSlice), ordered by rank, ties in list order. Why: the window's
 * 201 rows of eight columns, parsed by the service to be sorted there and a quarter of them
 * shown, were most of its row parsing for a common phrase's page (pg's parseRow, Buffer slices,
 * the strings' collection; --cpu-prof); sorted in PostgreSQL they are 200 numbers compared.
 *
 * With only publication and update bounds besides q, the walk runs on one generic plan
 * (tenantSql's `generic`): the list-order index from the newest article whatever the words and
 * bounds, planned once instead of on every run (0.23-0.26 ms of a rare word's 0.74 ms of
 * statements at 1,000,000 articles; 0.025 ms generic). A generic plan cannot choose another index
 * for a bound that leaves few articles, as a custom plan would (the update-order index for an
 * early updated_before): there it would walk the whole archive for its articles. So the walk
 * takes its articles from the newest of the index's own range (the publication bounds), then
 * applies the other bounds: it never reads more than walkRowsPerWindowRow × window of them.
 */
async function walkedRows(sql: Sql, input: SearchPageInput, window: number, page: { limit: number; offset: number }, { gate, extra }: { gate: string | null; extra: unknown[] }): Promise<Walked> {
  const { values, qPlaceholder, listOrder } = input
  const n = values.length + 1
  const generic = planStableFilter({ ...input.filter, q: undefined })
  const walkedColumns = 'id, published_at, created_at, version, updated_at'
  // Each walked article's rank where it matches (null where not), computed before row_number()
  // numbers the walk: a WindowAgg copies every row it numbers into its tuplestore, and carrying
  // the ~1.5 KB vector through it was a tenth of the walk's PostgreSQL CPU (memmove, perf) at
  // 1,000,000 articles. One @@ a row, as before: ts_rank_cd only where it matched.
  const ranked = `${walkedColumns}, CASE WHEN ${searchCondition(qPlaceholder)} THEN ts_rank_cd(search_vector, ${searchQuery(qPlaceholder)})::float8 END AS rank`
  // OFFSET 0 keeps the ranked rows a subquery of their own (not pulled up into the numbering, which
  // would compute the rank above it, the vector spooled again); ordered, so nothing sorts them.
  const walked = generic
    ? `SELECT ${walkedColumns}, rank, row_number() OVER (ORDER BY ${listOrder}) AS walked
       FROM (SELECT ${ranked}
             FROM (SELECT ${walkedColumns}, search_vector, tenant_id FROM articles WHERE ${input.listOrderWhere} ORDER BY ${listOrder} LIMIT $${n + 1}) newest
             WHERE ${otherFiltersOf(input)} ORDER BY ${listOrder} OFFSET 0) filtered
       ORDER BY ${listOrder}`
    : `SELECT ${walkedColumns}, rank, row_number() OVER (ORDER BY ${listOrder}) AS walked
       FROM (SELECT ${ranked} FROM articles WHERE ${otherFiltersOf(input)} ORDER BY ${listOrder} LIMIT $${n + 1}) filtered
       ORDER BY ${listOrder}`
  const walkValues = [...values, window * walkRowsPerWindowRow, window + 1, ...extra]
  const [windowRows, lastOfWindow, pageLimit, pageOffset] = [1, 2, 3, 4].map((k) => `$${walkValues.length + 1 + k}`)
  const slice = windowSlice(page, window)
  // Ordered as the walk is (not by `walked`, which the planner would sort), so it stops at the
  // window's last match; the CTE runs once, its at most window + 1 rows then counted and paged.
  // `walked` grows with the walk, so it orders the window's matches as the list does.
  const rows = await sql.rows<WalkedPageRow & { matches: number; windowWalked: string | null; walked: string | null }>(
    `WITH walk AS (
       SELECT id, walked, rank${input.keysOnly ? walkedKeyColumns : ''} FROM (${walked}) recent
       WHERE rank IS NOT NULL${gate ? ` AND ${gate}` : ''} ORDER BY ${listOrder} LIMIT $${n + 2}
     )
     SELECT counted.matches, counted."windowWalked", page.*
     FROM (SELECT count(*)::int AS matches, (SELECT walked FROM walk ORDER BY walked OFFSET ${lastOfWindow} LIMIT 1) AS "windowWalked" FROM walk) counted
     LEFT JOIN LATERAL (
       SELECT * FROM (SELECT * FROM walk ORDER BY walked LIMIT ${windowRows}) in_window ORDER BY rank DESC, walked LIMIT ${pageLimit} OFFSET ${pageOffset}
     ) page ON true
     ORDER BY page.rank DESC, page.walked`,
    [...walkValues, window, window - 1, slice.limit, slice.offset],
    { generic },
  )
  const [first] = rows
  return { matches: first!.matches, windowWalked: first!.windowWalked === null ? null : Number(first!.windowWalked), page: rows.filter((row) => row.id !== null).map(({ matches: _, windowWalked: _walked, walked: _at, ...row }) => row) }
}

/** The window the walk found, with the estimated total, or null when it found no more than the window. */
async function foundByWalk(sql: Sql, input: SearchPageInput, window: number, walked: Walked): Promise<NewestMatches | null> {
  // One match more than the window says there are more than it holds, without a count.
  if (walked.matches <= window) return null
  const otherFilters = otherFiltersOf(input)!
  const [plan] = await sql.rows<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>(`EXPLAIN (FORMAT JSON) SELECT 1 FROM articles WHERE ${otherFilters}`, input.values.slice(0, -1))
  const share = window / walked.windowWalked!
  const estimate = Math.round(share * plan!['QUERY PLAN'][0].Plan['Plan Rows'])
  return { walkedPage: walked.page, total: Math.max(estimate, window + 1), estimated: true }
}

/**
 * The ids of the newest `window` matches, with the total. Walked in list order from the newest
 * article, as long as that finds them within walkRowsPerWindowRow × window articles; else (the
 * matches are few among the recent articles) from the index of words, counting every match exactly.
 */
async function newestMatches(sql: Sql, input: SearchPageInput, window: number, page: { limit: number; offset: number }): Promise<NewestMatches> {
  return (await walkNewestMatches(sql, input, window, page)) ?? indexedNewestMatches(sql, input, window)
}

async function indexedNewestMatches(sql: Sql, { where, values, listOrder }: SearchPageInput, window: number): Promise<NewestMatches> {
  const n = values.length + 1
  const rows = await sql.rows<{ id: string; total: number }>(`SELECT id, count(*) OVER ()::int AS total FROM articles WHERE ${where} ORDER BY ${listOrder} LIMIT $${n + 1}`, [...values, window])
  return { ids: rows.map((row) => row.id), total: rows[0]?.total ?? 0, estimated: false }
}

type Sql = ReturnType<typeof tenantSql>

/** A page of the matching rows `where` selects, in `order` (which may use `rank`), with their rank and snippet. */
async function matchRows(sql: Sql, input: SearchPageInput, page: MatchPage): Promise<MatchRow[]> {
  if (page.limit <= 0) return []
  return (await readMatchRows(sql, input, page)).rows
}

/** matchRows' page, and with `page.bounded` the bounded count it was read under (matchPageStatement). */
async function readMatchRows(sql: Sql, input: SearchPageInput, page: MatchPage): Promise<{ rows: MatchRow[]; boundedMatches: number | null }> {
  const pageValues = [...input.values, ...(page.extra ?? []), page.limit, page.offset]
  type Read = MatchRow & { boundedMatches?: number; searchLanguage?: string }
  const read = async (shown: string, snippet: string | null, values: unknown[]) => {
    const rows = await sql.rows<Read>(matchPageStatement(input, page, shown, snippet), values, { prepare: page.prepare ?? false })
    // A bounded page's one row without an article: the count passed the window, or the page is past the matches.
    return { rows: page.bounded ? rows.filter((row) => row.id !== null) : rows, boundedMatches: page.bounded ? rows[0]!.boundedMatches! : null }
  }
  if (!input.keysOnly) {
    // ts_headline's options follow the page's values.
    const { rows, boundedMatches } = await read('matched.*', snippetOf(input.qPlaceholder, `$${pageValues.length + 2}`), [...pageValues, headlineOptions])
    return { rows: rows.map(({ boundedMatches: _, ...row }) => row), boundedMatches }
  }
  // By key the body is neither sent nor marked in the page's statement: the record comes from
  // rendered-records.ts, the snippet from kept-snippets.ts or, when not kept, one statement for
  // the page's articles whose snippet is not.
  const keys = articleKeyColumns.split(', ').map((column) => `matched.${column.split(' AS ').at(-1)}`)
  const { rows, boundedMatches } = await read(`${keys.join(', ')}, matched."matchRank", matched.position, (SELECT search_language::text FROM tenants WHERE id = $1) AS "searchLanguage"`, null, pageValues)
  if (rows.length === 0) return { rows, boundedMatches }
  return { rows: await withSnippets(sql, input, rows.map(({ searchLanguage: _, boundedMatches: _count, ...row }) => row), rows[0]!.searchLanguage!), boundedMatches }
}

/** A page's rows named by key with their snippets: kept ones (kept-snippets.ts), the others made in one statement. */
async function withSnippets(sql: Sql, input: SearchPageInput, rows: Omit<MatchRow, 'matchSnippet'>[], searchLanguage: string): Promise<MatchRow[]> {
  const q = String(input.filter.q)
  const snippets = await keptSnippets(sql.tenantId, searchLanguage, q, rows as ArticleKey[], (ids) =>
    sql.rows<MadeSnippet>(
      `SELECT matched.id, matched.version, matched.updated_at AS "updatedAt", ${snippetOf('$2', '$4')} AS snippet
       FROM articles AS matched WHERE matched.tenant_id = $1 AND matched.id = ANY($3::text[])`,
      [q, ids, headlineOptions],
      // Read by id: one plan whatever the ids.
      { prepare: true },
    ),
  )
  return rows.map((row) => {
    const snippet = snippets.get(row.id)
    // Made from another version than the page named, or gone: the page is read again whole.
    if (snippet === undefined) throw new ChangedWhileReadByKey()
    return { ...row, matchSnippet: snippet }
  })
}

/** `bounded`: the page is read under a count of `where`'s matches bounded by the first of `extra` (matchPageStatement). */
type MatchPage = { where: string; extra?: unknown[]; order: string; limit: number; offset: number; prepare?: boolean; bounded?: boolean }

/** The snippet of the row `matched`, its words marked for the query at `qPlaceholder`, with ts_headline's options at `optionsPlaceholder`. */
const snippetOf = (qPlaceholder: string, optionsPlaceholder: string) =>
  `ts_headline((SELECT search_language FROM tenants WHERE id = $1), ${snippetSource(qPlaceholder)}, ${searchQuery(qPlaceholder)}, ${optionsPlaceholder})`

/** The statement of a page of matches (the columns `shown` of the rows `matched`, and the snippet when given), its limit and offset after the values and `page.extra`. */
function matchPageStatement({ values, qPlaceholder }: SearchPageInput, page: MatchPage, shown: string, snippet: string | null): string {
  const p = values.length + 2 + (page.extra?.length ?? 0)
  const bound = `$${values.length + 2}`
  const rows = `SELECT ${shown}${snippet ? `, ${snippet} AS "matchSnippet"` : ''}
    FROM (
      SELECT ${articleColumns}, rank AS "matchRank", row_number() OVER (ORDER BY ${page.order}) AS position
      FROM articles, LATERAL (SELECT ts_rank_cd(search_vector, ${searchQuery(qPlaceholder)})::float8 AS rank) ranked
      WHERE ${page.where}${page.bounded ? ` AND bounded.matched < ${bound}` : ''}
      ORDER BY ${page.order} LIMIT $${p} OFFSET $${p + 1}
    ) matched
    ORDER BY position`
  if (!page.bounded) return rows
  // The count first; the page's condition on it is a One-Time Filter, so a count that reaches the
  // bound (a common word: the page would rank every match) skips the page, and one row says the count.
  return `SELECT bounded.matched AS "boundedMatches", page.*
    FROM (SELECT count(*)::int AS matched FROM (SELECT 1 FROM articles WHERE ${page.where} LIMIT ${bound}) counted) bounded
    LEFT JOIN LATERAL (${rows}) page ON true
    ORDER BY page.position`
}

function pageOf({ keysOnly }: SearchPageInput, rows: MatchRow[], total: number, { limit, offset }: { limit: number; offset: number }, estimated = false): Page<SearchedArticle | SearchedKey> {
  const items = rows.map(({ matchRank, matchSnippet, position: _position, ...row }) => ({ ...(keysOnly ? (row as ArticleKey) : toArticle(row as StoredArticle)), match: { rank: matchRank, snippet: matchSnippet } }))
  if (!estimated || items.length < limit) return toPage(items, total, { limit, offset })
  // A full page of an estimated total: more may follow whatever the estimate says, so the
  // page never ends the walk early.
  return { ...toPage(items, Math.max(total, offset + items.length + 1), { limit, offset }), totalIsEstimate: true }
}

/**
 * The snippet as HTML: every character of the article's text escaped, the matched words in
 * <mark>. Built by alternating on the markers, so a stray marker in an article can never leave
 * an element open.
 */
export function snippetHtml(snippet: string): string {
  return snippetParts(snippet)
    .map(({ text, matched }) => (matched ? `<mark>${escapeHtml(text)}</mark>` : escapeHtml(text)))
    .join('')
}

/** The snippet as plain pieces, matched or not, for a renderer that escapes by itself (React). */
export function snippetParts(snippet: string): { text: string; matched: boolean }[] {
  const parts: { text: string; matched: boolean }[] = []
  for (const [index, piece] of snippet.split(matchStart).entries()) {
    const [matched, ...rest] = index === 0 ? [undefined, piece] : piece.split(matchStop)
    if (matched) parts.push({ text: matched, matched: true })
    const plain = rest.join('')
    if (plain) parts.push({ text: plain, matched: false })
  }
  return parts
}

function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#39;')
}

export type ListedArticleRecord = ReturnType<typeof toListedArticleRecord>

/** A listed article as the API shows it: the record, and with `q` why it matched. */
export function toListedArticleRecord(article: SearchedArticle) {
  const record = toArticleRecord(article)
  return article.match ? { ...record, match: matchRecord(article.match) } : record
}

/** Why an article matched, as the API shows it. */
export function matchRecord(match: ArticleMatch) {
  return { rank: match.rank, snippet: snippetHtml(match.snippet) }
}
