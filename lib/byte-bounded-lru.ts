/**
 * Values kept by key within a budget of bytes, the least recently used given up first: the
 * response cache's answers, the kept article records and the kept search snippets share this
 * one eviction rule.
 */
export function byteBoundedLru<Value>() {
  const entries = new Map<string, { value: Value; bytes: number }>()
  let total = 0
  return {
    /** The value kept for `key`, now the most recently used; undefined if none. */
    get(key: string): Value | undefined {
      const entry = entries.get(key)
      if (!entry) return undefined
      // Most recently used last: eviction takes from the front.
      entries.delete(key)
      entries.set(key, entry)
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
      entries.set(key, { value, bytes })
      total += bytes
    },
    clear(): void {
      entries.clear()
      total = 0
    },
    bytes: (): number => total,
  }
}
