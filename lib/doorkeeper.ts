/**
 * Remembers the keys asked for lately, so that a cache keeps a thing the second time it is
 * asked, not the first: most of what is asked once (a sync walking its pages, a search, the
 * bench's cold lists) is never asked again, and keeping it would push out what is asked again
 * and again (the response cache, lib/api/response-cache.ts; the rendered article records,
 * lib/articles/rendered-records.ts).
 *
 * Two sets of up to `generationSize` keys, the older dropped whole when the newer fills: it
 * remembers the last `generationSize` to twice that many keys, at constant work a key. Evicting
 * the oldest key of one set instead (an iterator from its front, past the holes its deletions
 * leave) was 1.9 % of a cold list's CPU at 1,000,000 articles (issue 50).
 */
export class Doorkeeper {
  private recent = new Set<string>()
  private older = new Set<string>()

  constructor(private readonly generationSize: number) {}

  /** Whether `key` was asked for lately; remembers it if not. */
  askedBefore(key: string): boolean {
    if (this.recent.has(key) || this.older.has(key)) return true
    if (this.recent.size >= this.generationSize) {
      this.older = this.recent
      this.recent = new Set()
    }
    this.recent.add(key)
    return false
  }

  clear(): void {
    this.recent.clear()
    this.older.clear()
  }
}
