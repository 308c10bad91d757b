import type { ListArticlesFilter } from './article-schemas.ts'

// Publication and update bounds only: a list so filtered has one best plan whatever the bounds
// (the list-order or change-order index, from the bound), where a status, author, department,
// tag or search is as selective as its value and must be planned for it.
const planStableKeys: ReadonlySet<string> = new Set(['published_after', 'published_before', 'updated_after', 'updated_before'])

/** Whether the statements of a list so filtered may run prepared (tenantSql's `prepare`): their best plan does not depend on the values. */
export function planStableFilter(filter: Partial<ListArticlesFilter>): boolean {
  return Object.entries(filter).every(([key, value]) => value === undefined || planStableKeys.has(key))
}
