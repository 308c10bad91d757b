import { expect } from 'vitest'
import { snippetHtml } from '../../lib/articles/search-articles.ts'

type Get = (path: string) => Promise<{ status: number; text: string; body: any }>
type Query = (text: string, values: unknown[]) => Promise<{ rows: any[] }>
type Article = { headline: string; lede?: string | null; body?: string; tags?: string[] }

/**
 * Articles whose lede or body may or may not hold the searched words, with ledes at the edges of
 * where a snippet may be made from the lede alone (search-articles.ts snippetSource): nine words
 * or eight, `<`, entities, hyphens, addresses, no lede. Each is searched by a word or phrase of its
 * headline (`kestrel…`), so it matches whatever its text holds.
 */
const cases: { key: string; q: string; article: Article }[] = [
  { key: 'headline only', q: 'kestrel1', article: { headline: 'Kestrel1 returns', lede: 'What the decision means for readers in the city, story 7.', body: '<p>The committee met on Tuesday.</p>' } },
  { key: 'phrase by headline', q: '"kestrel2 plan"', article: { headline: 'Kestrel2 plan approved', lede: 'What the decision means for readers in the city, story 8.', body: '<p>Nothing else.</p>' } },
  { key: 'eight words', q: 'kestrel3', article: { headline: 'Kestrel3', lede: 'one two three four five six seven eight', body: '<p>nine ten eleven twelve</p>' } },
  { key: 'nine words', q: 'kestrel4', article: { headline: 'Kestrel4', lede: 'one two three four five six seven eight nine', body: '<p>ten eleven</p>' } },
  { key: 'lede with <', q: 'kestrel5', article: { headline: 'Kestrel5', lede: 'a <b c d e f g h i j k l> m n o p q r s', body: '<p>t u v</p>' } },
  { key: 'entities, hyphens, addresses', q: 'kestrel6', article: { headline: 'Kestrel6', lede: 'Well-known &amp; co-op, see https://example.com/a?b=c or write to desk@example.com — 3.5% up, v1.2.3 today', body: '<p>more</p>' } },
  { key: 'dashes and numbers', q: 'kestrel7', article: { headline: 'Kestrel7', lede: '— 1 — 2 — 3 — 4 — 5 — 6 — 7 — 8 — 9 — 10', body: '<p>eleven</p>' } },
  { key: 'word in the lede', q: 'kestrel8', article: { headline: 'Kestrel8 news', lede: 'The kestrel8 was seen over the river by many people on Sunday.', body: '<p>Body.</p>' } },
  { key: 'word in the body', q: 'kestrel9', article: { headline: 'Kestrel9 news', lede: 'What the decision means for readers in the city, story 9.', body: '<p>Late in the day a kestrel9 appeared.</p>' } },
  { key: 'word in a tag', q: 'kestrel10', article: { headline: 'Kestrel10', lede: 'What the decision means for readers in the city, story 10.', body: '<p>Body.</p>', tags: ['kestrel10'] } },
  { key: 'one phrase word in the body', q: '"kestrel11 plan"', article: { headline: 'Kestrel11 plan', lede: 'What the decision means for readers in the city, story 11.', body: '<p>The plan was late.</p>' } },
  { key: 'no lede', q: 'kestrel12', article: { headline: 'Kestrel12', lede: null, body: '<p>one two three four five six seven eight nine ten</p>' } },
  { key: 'escaped markup and attributes', q: 'kestrel14 or b', article: { headline: 'Kestrel14', lede: 'What the decision means for readers in the city, story 14.', body: '<p title="a>b">Type &lt;b&gt;bold&lt;/b&gt; <a href="https://example.com/?x=1&y=2>3">here</a>.</p>' } },
  { key: 'either word', q: 'kestrel13 or committee', article: { headline: 'Kestrel13', lede: 'What the decision means for readers in the city, story 13.', body: '<p>The committee met.</p>' } },
]

/** Creates the cases' articles through the API; `post` answers with the created article. */
export async function createSnippetCases(post: (article: Article) => Promise<{ status: number; text: string; body: any }>): Promise<void> {
  for (const { article } of cases) {
    const answer = await post(article)
    expect(answer.status, answer.text).toBe(201)
  }
}

/**
 * Every case's snippet, as the API shows it, is ts_headline of its lede and body text, computed
 * here the plain way (the whole text, parsed), in the newsroom's language.
 */
export async function expectSnippetsOfWholeText(get: Get, query: Query, tenantId: string): Promise<void> {
  for (const { key, q } of cases) {
    const answer = await get(`/v1/articles?q=${encodeURIComponent(q)}`)
    expect(answer.status, answer.text).toBe(200)
    expect(answer.body.items.length, key).toBeGreaterThan(0)
    for (const item of answer.body.items) {
      const { rows } = await query(
        `SELECT ts_headline(t.search_language, concat_ws(' ', a.lede, article_plain_text(a.body)), websearch_to_tsquery(t.search_language, $3),
                 'StartSel=' || chr(2) || ', StopSel=' || chr(3) || ', MaxFragments=2, MaxWords=24, MinWords=8, FragmentDelimiter=" … "') AS snippet
         FROM articles a JOIN tenants t ON t.id = a.tenant_id WHERE a.id = $1 AND a.tenant_id = $2`,
        [item.article_id, tenantId, q],
      )
      expect(item.match.snippet, `${key}: ${item.headline}`).toBe(snippetHtml(rows[0].snippet))
    }
  }
}
