/**
 * Values kept by key within a budget of bytes, the least recently used given up first: the
 * response cache's answers, the kept article records and the kept search snippets share this
 * one eviction rule.
 */
export function byteBoundedLru<Value>() {
  const entries = new Map<string, { value: Value; bytes: number; placed: number }>()
  let total = 0
  // How many times an entry has been put at the back of the order: an entry placed fewer than a
  // quarter of the map's size of placements ago has at most that many entries behind it.
  let placements = 0
  return {
    /** The value kept for `key`, now among the most recently used; undefined if none. */
    get(key: string): Value | undefined {
      const entry = entries.get(key)
      if (!entry) return undefined
      // Most recently used last: eviction takes from the front. An entry already in the newest
      // quarter stays where it is: a hot answer read thousands of times a second was otherwise
      // deleted and set again on every read (~1.5 % of a cached GET's CPU, issue 50), to land
      // where it nearly was. It is moved again once it has drifted out of that quarter, so the
      // least recently used still goes first, give or take a quarter of the entries.
      if (placements - entry.placed >= entries.size >> 2) {
        entries.delete(key)
        entries.set(key, entry)
        entry.placed = ++placements
      }
      return entry.value
    },
    /** Keeps `value` as `bytes` of the budget, giving up the least recently used until it fits. */
    set(key: string, value: Value, bytes: number, budget: number): void {
      const previous = entries.get(key)
      if (previous) {
        entries.delete(key)
        total -= previous.bytes
      }
      for (const [oldestKey, oldest] of entries) {
        if (total + bytes <= budget) break
        entries.delete(oldestKey)
        total -= oldest.bytes
      }
      entries.set(key, { value, bytes, placed: ++placements })
      total += bytes
    },
    clear(): void {
      entries.clear()
      total = 0
    },
    bytes: (): number => total,
  }
}
