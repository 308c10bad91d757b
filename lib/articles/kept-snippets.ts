import { byteBoundedLru } from '../byte-bounded-lru.ts'
import { processSingleton } from '../process-singleton.ts'
import { sameVersion, versionKeyOf } from './rendered-records.ts'

/** An article as a search page names it: which version of it the snippet is made from. */
type SnippetKey = { id: string; version: number; updatedAt: Date }
export type MadeSnippet = SnippetKey & { snippet: string }

// ~6,000 snippets of ~170 characters: the pages of the searches a newsroom repeats.
const maxBytes = 2 * 1024 * 1024

const kept = processSingleton('kept search snippets', () => byteBoundedLru<string>())

/**
 * Where a search's snippet of an article is kept: the article's version (every write advances
 * it, as for rendered-records.ts), the query as sent and the newsroom's search language (which
 * decides the words a snippet marks), so a kept snippet is never out of date.
 */
const keyOf = (tenantId: string, language: string, q: string, article: SnippetKey) =>
  `${tenantId}\u0000${language}\u0000${q}\u0000${versionKeyOf(article)}`

/**
 * The snippets of a search page's articles, by id (none for an article that changed or went
 * since the page named it): kept from an earlier page of the same query where the article has
 * not changed since, the others made by `make` (in PostgreSQL, one statement for all of them)
 * and kept. Why: ts_headline parses and looks up every word of the
 * text it marks (~0.5-0.85 ms for a 3.4 KB body at 1,000,000 articles, pg_stat_statements),
 * and the searches an editor repeats (the next page and back, the same story's name as news
 * breaks, a filter added) show the same articles again.
 */
export async function keptSnippets(tenantId: string, language: string, q: string, articles: SnippetKey[], make: (ids: string[]) => Promise<MadeSnippet[]>): Promise<Map<string, string>> {
  const snippets = new Map<string, string>()
  const missing: string[] = []
  for (const article of articles) {
    const snippet = kept.get(keyOf(tenantId, language, q, article))
    if (snippet === undefined) missing.push(article.id)
    else snippets.set(article.id, snippet)
  }
  if (missing.length === 0) return snippets
  const named = new Map(articles.map((article) => [article.id, article]))
  for (const made of await make(missing)) {
    // Another version than the page named (a write in between) is not this page's snippet.
    if (!sameVersion(made, named.get(made.id)!)) continue
    snippets.set(made.id, made.snippet)
    const key = keyOf(tenantId, language, q, made)
    // UTF-16 in V8's heap: two bytes a character, the key's and the snippet's.
    kept.set(key, made.snippet, 2 * (key.length + made.snippet.length), maxBytes)
  }
  return snippets
}

/** Drops every kept snippet, as a new process starts (for tests). */
export function forgetKeptSnippets(): void {
  kept.clear()
}
