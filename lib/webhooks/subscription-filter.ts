import { apiStatuses, type ApiStatus } from '../articles/article-status.ts'

/**
 * A subscription's narrowing of the events it asked for (`events`), beside its kinds:
 * `department_ids`, `tags` (any of, whatever their spelling) and `statuses` (the article's
 * status after the change). Each list empty narrows nothing; several lists all apply.
 *
 * They narrow events about an article: the `article.*` kinds, whose data is the article after
 * the change, and `workflow.transitioned` (status after the change: `to_state`; department and
 * tags: the article's when the event fans out). Events about no article (`user.*`) are governed
 * by `events` alone: a subscription that lists them asked for them, whatever article it follows.
 */
export type SubscriptionFilter = { departmentIds: readonly string[]; tags: readonly string[]; statuses: readonly string[] }

/** What the filter looks at of one event; null for an event about no article. */
export type ArticleFacts = { departmentId: string | null; tags: readonly string[]; status: string | null }

export function hasArticleFilter(filter: SubscriptionFilter): boolean {
  return filter.departmentIds.length > 0 || filter.tags.length > 0 || filter.statuses.length > 0
}

export function isArticleEvent(kind: string): boolean {
  return kind.startsWith('article.') || kind === 'workflow.transitioned'
}

function text(value: unknown): string | null {
  return typeof value === 'string' ? value : null
}

/**
 * The facts an event's own data gives: all of them for `article.*` (the article record), the
 * status only for `workflow.transitioned` (its department and tags are the article's, read by
 * the caller). Null for an event about no article.
 */
export function factsFromEventData(kind: string, data: unknown): (ArticleFacts & { articleId: string | null; complete: boolean }) | null {
  if (!isArticleEvent(kind)) return null
  const record = (data && typeof data === 'object' ? data : {}) as Record<string, unknown>
  const articleId = text(record.article_id)
  if (kind === 'workflow.transitioned') return { articleId, departmentId: null, tags: [], status: text(record.to_state), complete: false }
  const tags = Array.isArray(record.tags) ? record.tags.filter((tag): tag is string => typeof tag === 'string') : []
  return { articleId, departmentId: text(record.department_id), tags, status: text(record.status), complete: true }
}

/** Whether a subscription with this filter gets an event with these facts (null: about no article). */
export function passesFilter(filter: SubscriptionFilter, facts: ArticleFacts | null): boolean {
  if (facts === null || !hasArticleFilter(filter)) return true
  if (filter.departmentIds.length > 0 && (facts.departmentId === null || !filter.departmentIds.includes(facts.departmentId))) return false
  if (filter.tags.length > 0) {
    const wanted = new Set(filter.tags.map((tag) => tag.toLowerCase()))
    if (!facts.tags.some((tag) => wanted.has(tag.toLowerCase()))) return false
  }
  if (filter.statuses.length > 0 && (facts.status === null || !filter.statuses.includes(facts.status))) return false
  return true
}

/** The filter in words, as the test event and the portal say which events a subscription passes. */
export function describeFilter(events: readonly string[], filter: SubscriptionFilter, departmentNames: ReadonlyMap<string, string> = new Map()): string {
  const kinds = events.join(', ')
  if (!hasArticleFilter(filter)) return `Every ${kinds} event.`
  const parts: string[] = []
  if (filter.departmentIds.length > 0) parts.push(`in ${filter.departmentIds.map((id) => departmentNames.get(id) ?? id).join(' or ')}`)
  if (filter.tags.length > 0) parts.push(`tagged ${filter.tags.join(' or ')} (any spelling)`)
  if (filter.statuses.length > 0) parts.push(`whose status after the change is ${filter.statuses.join(' or ')}`)
  const aboutArticles = events.filter(isArticleEvent)
  const others = events.filter((kind) => !isArticleEvent(kind))
  const sentence = aboutArticles.length > 0 ? `${aboutArticles.join(', ')} events about articles ${parts.join(', ')}` : `No article events (the filter has none of its kinds to narrow)`
  return others.length > 0 ? `${sentence}; every ${others.join(', ')} event.` : `${sentence}.`
}

export const filterStatuses: readonly ApiStatus[] = apiStatuses
