import type { ListArticlesFilter } from './article-schemas.ts'
import type { ReadOptions, tenantSql } from '../tenancy/tenant-sql.ts'
import { instantAtOrAfter } from '../instant-bound.ts'

/**
 * Exact list totals from article_counts (the article_counts migration): articles per (tenant,
 * status, department, UTC hour/day/month of publication), kept by triggers in the writing
 * transaction. A range sums whole months, then whole days and whole hours at its ends, and
 * counts only the articles of the (at most two) partial hours at its very edges through the
 * list-order index: a few hundred index entries instead of the archive (3.7 s p50 at 1,000,000
 * articles with a new published_before each time, bench/results/lists-2026-11-26-*.md).
 * Everything is read in one statement, so the sum and the edge counts share one snapshot.
 */

type Sql = ReturnType<typeof tenantSql>

const countedKeys = new Set(['status', 'department_id', 'published_after', 'published_before'])

/** Whether the filter's total can be summed from article_counts (any other filter is counted). */
export function countedFromBuckets(filter: ListArticlesFilter): boolean {
  return Object.entries(filter).every(([key, value]) => value === undefined || countedKeys.has(key))
}

const hour = 3_600_000
const day = 24 * hour
type Grain = 'm' | 'd' | 'h'

function floorTo(grain: Grain, time: number): number {
  if (grain === 'h') return Math.floor(time / hour) * hour
  if (grain === 'd') return Math.floor(time / day) * day
  const date = new Date(time)
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1)
}

function ceilTo(grain: Grain, time: number): number {
  const floor = floorTo(grain, time)
  if (floor === time) return time
  if (grain === 'h') return floor + hour
  if (grain === 'd') return floor + day
  const date = new Date(floor)
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1)
}

export type BucketPlan = {
  /** Whole buckets to sum: grain, from (inclusive), to (exclusive); null is unbounded. */
  buckets: { grain: Grain; from: number | null; to: number | null }[]
  /** Partial hours to count in articles: [from, to). */
  edges: { from: number; to: number }[]
}

/**
 * The buckets that exactly cover published_at in [from, to) (null: unbounded), coarsest first:
 * whole months, then the whole days and hours left at either end, then what is left of an hour.
 */
export function planBuckets(from: number | null, to: number | null): BucketPlan {
  const plan: BucketPlan = { buckets: [], edges: [] }
  const cover = (a: number | null, b: number | null, grains: Grain[]) => {
    if (a !== null && b !== null && a >= b) return
    const [grain, ...finer] = grains
    if (!grain) {
      plan.edges.push({ from: a!, to: b! })
      return
    }
    const start = a === null ? null : ceilTo(grain, a)
    const end = b === null ? null : floorTo(grain, b)
    if (start !== null && end !== null && start >= end) return cover(a, b, finer)
    plan.buckets.push({ grain, from: start, to: end })
    if (a !== null) cover(a, start, finer)
    if (b !== null) cover(end, b, finer)
  }
  cover(from, to, ['m', 'd', 'h'])
  return plan
}

const tagCountedKeys = new Set(['tag', 'status'])

/**
 * Whether the filter's total can be summed from article_tag_counts: a tag, alone or with a status
 * (a desk's "published under local", the content API's tag pages). Any other filter is counted.
 */
export function countedFromTags(filter: ListArticlesFilter): filter is ListArticlesFilter & { tag: string } {
  return filter.tag !== undefined && Object.entries(filter).every(([key, value]) => value === undefined || tagCountedKeys.has(key))
}

/**
 * The exact number of articles carrying `filter.tag` in any spelling (and in `filter.status`):
 * the article_tag_counts migration keeps a count per folded tag, status and writer shard, so this
 * reads a few dozen rows at most where counting read every matching article (44,000 heap pages
 * for a tag on 4% of 1,000,000 articles: 3.2 s on a cold cache).
 */
export async function countFromTags(sql: Sql, filter: ListArticlesFilter & { tag: string }, options: ReadOptions = {}): Promise<number> {
  // lower() as the filter folds it (list-articles.ts), so the two cannot disagree on a spelling.
  const [row] = filter.status
    ? await sql.rows<{ total: string }>(`SELECT coalesce(sum(n), 0)::text AS total FROM article_tag_counts WHERE tenant_id = $1 AND tag = lower($2) AND status = $3::"ArticleStatus"`, [filter.tag, filter.status], options)
    : await sql.rows<{ total: string }>(`SELECT coalesce(sum(n), 0)::text AS total FROM article_tag_counts WHERE tenant_id = $1 AND tag = lower($2)`, [filter.tag], options)
  return Number(row!.total)
}

/** The exact number of articles matching a filter countedFromBuckets accepts. */
export async function countFromBuckets(sql: Sql, filter: ListArticlesFilter, options: ReadOptions = {}): Promise<number> {
  const values: unknown[] = []
  const total = bucketTotalExpression(filter, (value) => {
    values.push(value)
    return `$${values.length + 1}`
  })
  if (total === null) return 0
  const [row] = await sql.rows<{ total: string }>(`SELECT (${total})::text AS total`, values, options)
  return Number(row!.total)
}

/**
 * countFromBuckets' sum as an SQL expression over the tenant's $1, each other value given to
 * `param` for its placeholder, or null when nothing is counted (the total is 0): for a statement
 * that reads the total with its page (list-articles.ts).
 */
export function bucketTotalExpression(filter: ListArticlesFilter, param: (value: unknown) => string): string | null {
  const keyConditions: string[] = []
  const articleConditions: string[] = []
  if (filter.status) {
    const p = param(filter.status)
    keyConditions.push(`status = ${p}::"ArticleStatus"`)
    articleConditions.push(`status = ${p}::"ArticleStatus"`)
  }
  if (filter.department_id) {
    const p = param(filter.department_id)
    keyConditions.push(`department_id = ${p}`)
    articleConditions.push(`department_id = ${p}`)
  }
  const keyed = keyConditions.map((condition) => ` AND ${condition}`).join('')
  const articlesKeyed = articleConditions.map((condition) => ` AND ${condition}`).join('')
  const parts: string[] = []
  const ranged = filter.published_after !== undefined || filter.published_before !== undefined
  if (!ranged) {
    // Every article: the published ones once each in their month, the unpublished in 'u'.
    parts.push(`(SELECT coalesce(sum(n), 0) FROM article_counts WHERE tenant_id = $1 AND grain IN ('m', 'u')${keyed})`)
  } else {
    const plan = planBuckets(
      filter.published_after === undefined ? null : instantAtOrAfter(filter.published_after).getTime(),
      filter.published_before === undefined ? null : instantAtOrAfter(filter.published_before).getTime(),
    )
    for (const bucket of plan.buckets) {
      const bounds = [bucket.from === null ? '' : ` AND bucket >= ${param(new Date(bucket.from))}`, bucket.to === null ? '' : ` AND bucket < ${param(new Date(bucket.to))}`].join('')
      parts.push(`(SELECT coalesce(sum(n), 0) FROM article_counts WHERE tenant_id = $1 AND grain = '${bucket.grain}'${bounds}${keyed})`)
    }
    for (const edge of plan.edges) {
      parts.push(`(SELECT count(*) FROM articles WHERE tenant_id = $1${articlesKeyed} AND published_at >= ${param(new Date(edge.from))} AND published_at < ${param(new Date(edge.to))})`)
    }
  }
  return parts.length === 0 ? null : parts.join(' + ')
}
