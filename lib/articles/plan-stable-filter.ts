import type { ListArticlesFilter } from './article-schemas.ts'

// Publication and update bounds only: a list so filtered has one best plan whatever the bounds
// (the list-order or change-order index, from the bound), where a status, author, department,
// tag or search is as selective as its value and must be planned for it.
const planStableKeys: ReadonlySet<string> = new Set(['published_after', 'published_before', 'updated_after', 'updated_before'])

/** Whether the statements of a list so filtered may run prepared (tenantSql's `prepare`): their best plan does not depend on the values. */
export function planStableFilter(filter: Partial<ListArticlesFilter>): boolean {
  return Object.entries(filter).every(([key, value]) => value === undefined || planStableKeys.has(key))
}

// In list order, publication bounds only: the range of the list-order index itself. An update
// bound is a filter on that index's rows, which a custom plan may serve from the update-order
// index instead when the bound leaves few articles; a generic plan cannot, and would walk the
// list for them (24 s at 1,000,000 articles for an updated_before before every article, EXPLAIN
// ANALYZE). In change order (the feed), no filter at all, for the same reason.
const genericPlanKeys: Record<'published_at' | 'updated_at', ReadonlySet<string>> = {
  published_at: new Set(['published_after', 'published_before']),
  updated_at: new Set(),
}

/** Whether a page in `sort` order so filtered may run on one generic plan (tenantSql's `generic`): its plan is its order's index range whatever the values. */
export function genericPlanFilter(filter: Partial<ListArticlesFilter>, sort: 'published_at' | 'updated_at'): boolean {
  return Object.entries(filter).every(([key, value]) => value === undefined || genericPlanKeys[sort].has(key))
}
