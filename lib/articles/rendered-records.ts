import { positive } from '../config/positive-setting.ts'
import { backfillState } from '../db/data-migrations/backfill-state.ts'
import { processSingleton } from '../process-singleton.ts'
import { Doorkeeper } from '../doorkeeper.ts'
import { byteBoundedLru } from '../byte-bounded-lru.ts'
import { RenderedJson, UnrenderedObject } from '../rendered-json.ts'
import type { tenantSql } from '../tenancy/tenant-sql.ts'
import { articleRecordColumns, type StoredArticleRecord } from './article-rows.ts'
import { storedArticleRecord, toArticleRecord } from './article-record.ts'
import type { ArticleRecord } from './article-schemas.ts'
import type { Article } from '../db/generated/client.ts'

type Sql = ReturnType<typeof tenantSql>

/**
 * What a page read names of each article: enough to order and page it, and to know which
 * version of its record to show. Every write of an article advances its version and updated_at
 * (article-writes.ts, bulk-import.ts), so a record kept under these never needs invalidating.
 */
export const articleKeyColumns = 'id, version, updated_at AS "updatedAt", published_at AS "publishedAt", created_at AS "createdAt"'

export type ArticleKey = { id: string; version: number; updatedAt: Date; publishedAt: Date | null; createdAt: Date }

// A quarter of the response cache's memory: ~1,900 records of a 4 KB body, many times the pages
// a newsroom's recent traffic shows, held as bytes outside V8's heap (nothing for its collector
// to mark). 16 MiB took the bench's peak RSS at 1,000,000 articles to 391 MB of the 400 allowed.
const maxBytes = () => positive(process.env.RENDERED_RECORDS_MAX_BYTES, 8 * 1024 * 1024)

/**
 * One article's kept record: the JSON bytes of the version named beside them. Kept by the
 * article's id (unique across newsrooms; the newsroom is checked too), one version an article,
 * the newest rendered replacing the one before: a key naming the version
 * (`tenant:id:version:updatedAt`) was a string built, flattened and hashed for every row of
 * every page, twice (the kept records and the doorkeeper), where the row's id is a flat string
 * whose hash V8 keeps once computed. On a cold list at 1,000,000 articles, where nothing is
 * ever found kept, those lookups cost a tenth of the service's CPU a page (3,087 against 2,773
 * µs without them, interleaved A/B, 32 connections).
 */
type KeptRecord = { tenantId: string; version: number; updatedAt: Date; json: Buffer }

const keptRecords = processSingleton('rendered article records by id', () => byteBoundedLru<KeptRecord>())

type VersionOf = { id: string; version: number; updatedAt: Date }

/** Names one version of an article: every write advances its version and updated_at. */
export const versionKeyOf = (article: VersionOf) => `${article.id}:${article.version}:${article.updatedAt.getTime()}`

/** The kept record of exactly this version of the article, if one is kept. */
function keptRecordOf(tenantId: string, article: VersionOf): Buffer | undefined {
  const kept = keptRecords.get(article.id)
  return kept && kept.tenantId === tenantId && sameVersion(kept, article) ? kept.json : undefined
}

// A record read whole is kept the second time it is rendered, not the first (lib/doorkeeper.ts):
// pages that never overlap (a sync walking the archive, the bench's cold lists, each a new
// publication bound) kept every record they rendered, ~4.5 KB of bytes a row, 225 KB a page,
// every one of them thrown out unread ~40 pages later; kept that long they outlive the young
// generation, and the bytes of promoted buffers count towards V8's old-generation limit until a
// major collection frees them, so the keeping itself paced the major collections. The
// doorkeeper remembers the keys of the last 4,000 to 8,000 renderings (~80 bytes each), more
// than the ~1,900 records the budget holds, so a page asked again within what the budget would
// have kept finds its records kept from then on.
// Keyed by article id, as the kept records are: an article rendered again in a newer version is
// kept at once, as one asked twice in the same version is (both are articles pages show again).
const renderedOnce = processSingleton('rendered article records, rendered once', () => new Doorkeeper(4_000))

// How often lately a page's articles were found kept: decays by a fiftieth a page, so a change
// of traffic (a mirror polling the feed, a sync walking the archive) turns it within ~100 pages.
const recent = processSingleton('rendered article records, recent', () => ({ asked: 0, found: 0 }))
const decay = 0.98

/**
 * Whether a page should be read by key (its articles named, their kept records shown, the rest
 * read by id) rather than whole. Pages that lately found most of their records kept (the feed
 * a mirror polls, overlapping lists) are; pages that did not (a sync walking the archive,
 * filters over old stories) read their rows whole, as one statement instead of two: measured
 * with every record new, the key read and the read by id cost 5-20% more than the whole read.
 */
export function readByKey(): boolean {
  return !backfillState.bodiesMayBeUnclean && recent.asked > 0 && recent.found >= recent.asked / 2
}

function tally(asked: number, found: number): void {
  recent.asked = recent.asked * decay + asked
  recent.found = recent.found * decay + found
}

/**
 * Thrown by a page read by key when one of its articles changed (or went) between the page's
 * statement and the read of its records or snippets: the page is read again whole, one
 * snapshot. Showing the newer record instead listed an article that no longer matched the
 * page's filter (a tag and status list, while a writer moved the story: mixed-load test).
 */
export class ChangedWhileReadByKey extends Error {}

/**
 * The API records of the articles a page read named by key, in its order, each as its JSON
 * bytes: kept from an earlier page when that showed the same version, else read by id in one
 * statement and kept. Why: pages asked for the first time (a new filter, the feed a mirror
 * polls, another cursor) often show the same recent articles; reading, parsing and rendering
 * their bodies again (~4 KB each) was most of a cold page's cost to the service and to
 * PostgreSQL alike. Throws ChangedWhileReadByKey when an article read by id is not the
 * version the page named. `membersOf` gives what a record shows after its own members on
 * this page (a search's match).
 */
export async function renderedRecords<Key extends ArticleKey>(sql: Sql, tenantId: string, keys: Key[], membersOf?: (key: Key) => Record<string, unknown>): Promise<RenderedJson[]> {
  // While the body backfill runs, a record is sanitised on its way out (article-record.ts); kept
  // from then on it would outlive the reason, so nothing is kept until the backfill is done.
  const keeping = !backfillState.bodiesMayBeUnclean
  const found = new Map<string, Buffer | UnrenderedObject>()
  const missing: string[] = []
  for (const key of keys) {
    const record = keeping ? keptRecordOf(tenantId, key) : undefined
    if (record) found.set(key.id, record)
    else missing.push(key.id)
  }
  tally(keys.length, keys.length - missing.length)
  if (missing.length > 0) {
    const rows = await sql.rows<StoredArticleRecord>(`SELECT ${articleRecordColumns} FROM articles WHERE tenant_id = $1 AND id = ANY($2::text[])`, [missing], { prepare: true })
    const named = new Map(keys.map((key) => [key.id, key]))
    if (rows.length < missing.length || rows.some((row) => !sameVersion(row, named.get(row.id)!))) throw new ChangedWhileReadByKey()
    // A page read by key found most of its records kept: its traffic overlaps, so the others are kept at once.
    for (const row of rows) found.set(row.id, renderAndKeep(tenantId, row, storedArticleRecord(row), keeping))
  }
  return keys.map((key) => new RenderedJson(found.get(key.id)!, membersOf?.(key)))
}

/** The records of rows a page read whole: kept ones reused, the others rendered and kept. */
export function recordsOfRows(tenantId: string, rows: StoredArticleRecord[]): RenderedJson[] {
  return recordsOf(tenantId, rows.map((row) => ({ key: row, record: () => storedArticleRecord(row) })))
}

/**
 * One row's record, as recordsOfRows shows it, for a page whose rows are rendered as they are
 * read (list-articles.ts): with whether it was found kept, for tallyPage once the page is read.
 */
export function recordOfRow(tenantId: string, row: StoredArticleRecord): { record: RenderedJson; found: boolean } {
  const keeping = !backfillState.bodiesMayBeUnclean
  const kept = keeping ? keptRecordOf(tenantId, row) : undefined
  return { record: new RenderedJson(kept ?? renderAndKeep(tenantId, row, storedArticleRecord(row), keeping && renderedOnce.askedBefore(row.id))), found: kept !== undefined }
}

/** Counts a page rendered by recordOfRow as recordsOfRows counts its pages (readByKey). */
export function tallyPage(asked: number, found: number): void {
  tally(asked, found)
}

/**
 * The records of articles a page read whole as objects (a search by relevance), each followed
 * by `membersOf` it (its match), as recordsOfRows shows rows.
 */
export function recordsOfArticles<Shown extends Article>(tenantId: string, articles: Shown[], membersOf: (article: Shown) => Record<string, unknown> | undefined): RenderedJson[] {
  return recordsOf(tenantId, articles.map((article) => ({ key: article, record: () => toArticleRecord(article), members: membersOf(article) })))
}

function recordsOf(tenantId: string, shown: { key: ArticleKey; record: () => ArticleRecord; members?: Record<string, unknown> }[]): RenderedJson[] {
  const keeping = !backfillState.bodiesMayBeUnclean
  let found = 0
  const records = shown.map(({ key: article, record: recordOf, members }) => {
    const record = keeping ? keptRecordOf(tenantId, article) : undefined
    if (record) found++
    return new RenderedJson(record ?? renderAndKeep(tenantId, article, recordOf(), keeping && renderedOnce.askedBefore(article.id)), members)
  })
  // Counted as a read by key would have found them, so that traffic that now overlaps turns the
  // pages back to reading by key.
  tally(shown.length, found)
  return records
}

/** Whether two reads of an article saw the same version of it. */
export function sameVersion(read: { version: number; updatedAt: Date }, named: { version: number; updatedAt: Date }): boolean {
  return read.version === named.version && read.updatedAt.getTime() === named.updatedAt.getTime()
}

function renderAndKeep(tenantId: string, article: VersionOf, shown: ArticleRecord, keeping: boolean): Buffer | UnrenderedObject {
  // A record shown once is written straight into its answer's bytes (json-bytes.ts), member by
  // member, never a text of its own: its JSON.stringify text (~4 KB, built in parts) was then
  // flattened into a copy to be measured, and with the pg row's strings a cold page allocated
  // ~1.25 MB of V8's young generation, which the pages in flight at 32 connections kept
  // through scavenges into the old generation (issue 50, sampled allocations and --trace-gc-nvp).
  if (!keeping) return new UnrenderedObject(shown)
  // One record is ~4 KB: V8's own JSON.stringify, flattened and encoded once, costs less than
  // jsonBytes' member-by-member pieces, which are for the 200 KB page (in-process, 400 cold
  // pages of 50 a round, eight rounds: the service's CPU a page 2,386 -> 2,046 µs, the bytes equal).
  const record = Buffer.from(JSON.stringify(shown))
  const budget = maxBytes()
  if (record.length <= budget / 16) keptRecords.set(article.id, { tenantId, version: article.version, updatedAt: article.updatedAt, json: record }, record.length, budget)
  return record
}

/** Drops every kept record and what pages found lately, as a new process starts (for tests). */
export function forgetRenderedRecords(): void {
  keptRecords.clear()
  renderedOnce.clear()
  recent.asked = 0
  recent.found = 0
}

/** Bytes held by this process's kept records (for tests and metrics). */
export function renderedRecordBytes(): number {
  return keptRecords.bytes()
}
