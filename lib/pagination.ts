/** A page of a list (contract: list endpoints return items, the total and the next offset). */
export type Page<Item> = { items: Item[]; total: number; limit: number; offset: number; nextOffset: number | null }

/** The page holding `items`: the next offset is offset + limit while anything is left after it. */
export function toPage<Item>(items: Item[], total: number, { limit, offset }: { limit: number; offset: number }): Page<Item> {
  return { items, total, limit, offset, nextOffset: offset + items.length < total ? offset + limit : null }
}

/** The page as the API sends it, each item as its record. */
export function pageRecord<Item, ItemRecord>(page: Page<Item>, toRecord: (item: Item) => ItemRecord) {
  return { items: page.items.map(toRecord), total: page.total, limit: page.limit, offset: page.offset, next_offset: page.nextOffset }
}
