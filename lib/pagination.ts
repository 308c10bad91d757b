/** A page of a list (contract: list endpoints return items, the total and the next offset). */
export type Page<Item> = {
  items: Item[]
  total: number
  limit: number
  offset: number
  nextOffset: number | null
  nextCursor?: string | null
  /** Set when `total` is an estimate (a search matching more than it counts exactly). */
  totalIsEstimate?: true
}

/**
 * The page holding `items`: the next offset is offset + limit while anything is left after it.
 * The count and the page are separate reads (the count may come from a cache, or run beside the
 * page while a writer commits), so the total never contradicts what the page itself shows: a
 * short page ends the list, a full one proves at least that many rows, an empty one at most.
 */
export function toPage<Item>(items: Item[], counted: number, { limit, offset }: { limit: number; offset: number }): Page<Item> {
  const seen = offset + items.length
  const total = items.length === 0 ? Math.min(counted, offset) : items.length < limit ? seen : Math.max(counted, seen)
  return { items, total, limit, offset, nextOffset: seen < total ? offset + limit : null }
}

/** The page as the API sends it, each item as its record. */
export function pageRecord<Item, ItemRecord>(page: Page<Item>, toRecord: (item: Item) => ItemRecord) {
  return {
    items: page.items.map(toRecord),
    total: page.total,
    limit: page.limit,
    offset: page.offset,
    next_offset: page.nextOffset,
    ...(page.nextCursor !== undefined && { next_cursor: page.nextCursor }),
    ...(page.totalIsEstimate && { total_is_estimate: true }),
  }
}
