/**
 * Values kept by key within a budget of bytes, the least recently used given up first: the
 * response cache's answers, the kept article records and the kept search snippets share this
 * one eviction rule.
 *
 * The order of use is a list of its own, the Map only finds an entry: a read relinks the entry,
 * the Map is not touched. Keeping the order in the Map's insertion order instead (delete, then
 * set again, on every read) cost time in proportion to the Map's size for a key read again and
 * again: each delete leaves a hole in the key's own hash chain until V8 rehashes the table, and
 * every lookup of that key walks them (13 µs a read at 5,000 entries, measured; a hot cached
 * answer is read thousands of times a second). Giving up the oldest by iterating from the
 * Map's front likewise walked past the holes earlier evictions left.
 */
type Entry<Value> = { key: string; value: Value; bytes: number; newer: Entry<Value> | null; older: Entry<Value> | null }

export function byteBoundedLru<Value>() {
  const entries = new Map<string, Entry<Value>>()
  // Most recently used at the newest end; eviction takes from the oldest.
  let newest: Entry<Value> | null = null
  let oldest: Entry<Value> | null = null
  let total = 0

  const unlink = (entry: Entry<Value>) => {
    if (entry.newer) entry.newer.older = entry.older
    else newest = entry.older
    if (entry.older) entry.older.newer = entry.newer
    else oldest = entry.newer
    entry.newer = entry.older = null
  }
  const linkNewest = (entry: Entry<Value>) => {
    entry.older = newest
    entry.newer = null
    if (newest) newest.newer = entry
    newest = entry
    oldest ??= entry
  }
  const remove = (entry: Entry<Value>) => {
    unlink(entry)
    entries.delete(entry.key)
    total -= entry.bytes
  }

  return {
    /** The value kept for `key`, now the most recently used; undefined if none. */
    get(key: string): Value | undefined {
      const entry = entries.get(key)
      if (!entry) return undefined
      if (entry !== newest) {
        unlink(entry)
        linkNewest(entry)
      }
      return entry.value
    },
    /** Keeps `value` as `bytes` of the budget, giving up the least recently used until it fits. */
    set(key: string, value: Value, bytes: number, budget: number): void {
      // A key kept again (a newer answer for the same query) is updated where it is found: a
      // delete and a set of one key is what leaves holes in its chain.
      const previous = entries.get(key)
      if (bytes > budget) {
        // Larger than the whole budget (or a budget of zero): not kept, and the key's older value
        // is not left to answer for it. Never more bytes than the budget, not even for one entry.
        if (previous) remove(previous)
        while (oldest && total > budget) remove(oldest)
        return
      }
      if (previous) {
        unlink(previous)
        total -= previous.bytes
      }
      while (oldest && total + bytes > budget) remove(oldest)
      const entry = previous ?? { key, value, bytes, newer: null, older: null }
      entry.value = value
      entry.bytes = bytes
      if (!previous) entries.set(key, entry)
      linkNewest(entry)
      total += bytes
    },
    clear(): void {
      entries.clear()
      newest = oldest = null
      total = 0
    },
    bytes: (): number => total,
  }
}
