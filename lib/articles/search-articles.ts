import type { Article } from '../db/generated/client.ts'
import { tenantSql } from '../tenancy/tenant-sql.ts'
import { toPage, type Page } from '../pagination.ts'
import { articleColumns, toArticle, type StoredArticle } from './article-rows.ts'
import type { ListArticlesQuery } from './article-schemas.ts'
import { articleTotal } from './article-totals.ts'
import { toArticleRecord } from './article-record.ts'

/** Where a match's words start and stop in a snippet: control characters no article text needs. */
export const matchStart = '\u0002'
export const matchStop = '\u0003'

export type ArticleMatch = { rank: number; snippet: string }
export type SearchedArticle = Article & { match?: ArticleMatch }

// The query, parsed once per statement (a scalar subquery is an InitPlan whose result the
// plan reuses), with the tenant's configuration, so the GIN index serves @@. Unwrapped, the
// language's subquery kept websearch_to_tsquery from being folded into a constant, and every
// match re-parsed the query twice, in the recheck and in ts_rank_cd: 12,544 matches of a
// phrase cost 305 ms in that heap scan, 35 ms once parsed once.
const searchQuery = (placeholder: string) => `(SELECT websearch_to_tsquery((SELECT search_language FROM tenants WHERE id = $1), ${placeholder}))`

/** The condition that limits a list to the articles matching `q` (websearch syntax: "phrases", -exclusions, or). */
export function searchCondition(placeholder: string): string {
  return `search_vector @@ ${searchQuery(placeholder)}`
}

const headlineOptions = `StartSel=${matchStart}, StopSel=${matchStop}, MaxFragments=2, MaxWords=24, MinWords=8, FragmentDelimiter=" … "`

/**
 * A page of the articles matching `q` and the other filters (`where`, `values`, as the list
 * builds them, `q` among them at `qPlaceholder`): the most relevant first (ts_rank_cd, so
 * words close together rank higher, headline over lede and tags over body), then the list's own
 * order. Each carries its rank and a snippet of lede and body text with the matched words
 * between matchStart and matchStop; only the page's rows are highlighted.
 */
export async function searchArticlePage(
  tenantId: string,
  { where, values, qPlaceholder, listOrder, filter }: { where: string; values: unknown[]; qPlaceholder: string; listOrder: string; filter: unknown },
  { limit, offset }: Pick<ListArticlesQuery, 'limit' | 'offset'>,
): Promise<Page<SearchedArticle>> {
  const sql = tenantSql(tenantId)
  const page = values.length + 2
  const order = `rank DESC, ${listOrder}`
  const pageQuery = `
    SELECT matched.*, ts_headline(
             (SELECT search_language FROM tenants WHERE id = $1),
             concat_ws(' ', matched.lede, article_plain_text(matched.body)),
             ${searchQuery(qPlaceholder)}, $${page + 2}) AS "matchSnippet"
    FROM (
      SELECT ${articleColumns}, rank AS "matchRank", row_number() OVER (ORDER BY ${order}) AS position, count(*) OVER () AS "matchTotal"
      FROM articles, LATERAL (SELECT ts_rank_cd(search_vector, ${searchQuery(qPlaceholder)})::float8 AS rank) ranked
      WHERE ${where}
      ORDER BY ${order} LIMIT $${page} OFFSET $${page + 1}
    ) matched
    ORDER BY position`
  type Row = StoredArticle & { matchRank: number; matchSnippet: string; position: string; matchTotal: string }
  const rows = await sql.rows<Row>(pageQuery, [...values, limit, offset, headlineOptions])
  // Ranking reads every match anyway, so the page counts them too (a second pass over the
  // matches cost a third of a phrase search's time); a page past the end counts on its own.
  const total = rows[0]
    ? Number(rows[0].matchTotal)
    : await articleTotal(tenantId, filter, async () => {
        const [counted] = await sql.rows<{ total: number }>(`SELECT count(*)::int AS total FROM articles WHERE ${where}`, values)
        return counted!.total
      })
  const items = rows.map(({ matchRank, matchSnippet, position: _position, matchTotal: _total, ...row }) => ({ ...toArticle(row), match: { rank: matchRank, snippet: matchSnippet } }))
  return toPage(items, total, { limit, offset })
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

/** A listed article as the API shows it: the record, and with `q` why it matched. */
export function toListedArticleRecord(article: SearchedArticle) {
  const record = toArticleRecord(article)
  return article.match ? { ...record, match: { rank: article.match.rank, snippet: snippetHtml(article.match.snippet) } } : record
}
