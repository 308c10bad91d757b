import type { EventInput } from '../events/record-event.ts'
import { contentPurgeUrl } from './purge-hook.ts'
import { articleSurrogateKey, listSurrogateKey } from './surrogate-keys.ts'

type ArticleEventData = { article_id?: unknown; status?: unknown }

/**
 * An article change's events plus the purge they call for, to be written to the outbox in the
 * change's own statement or transaction: the purge then commits with the change or not at all,
 * and is sent like any outbox event (a shared cache briefly down only delays it).
 *
 * What the public site shows changes when an article goes live, leaves it (unpublished,
 * archived) or changes while live (an edit, a new slug): then its own pages and the newsroom's
 * list pages are purged. A draft's edits purge nothing. Without a purge hook
 * (CONTENT_PURGE_URL) there is no shared cache to purge and nothing is written.
 */
export function withContentPurges(tenantId: string, events: EventInput[]): EventInput[] {
  if (!contentPurgeUrl()) return events
  const articleIds = new Set<string>()
  for (const event of events) {
    const data = event.data as ArticleEventData
    if (typeof data.article_id !== 'string') continue
    const leavesOrEntersSite = event.kind === 'article.published' || event.kind === 'article.unpublished' || event.kind === 'article.archived'
    const changedWhileLive = (event.kind === 'article.updated' || event.kind === 'article.created') && data.status === 'published'
    if (leavesOrEntersSite || changedWhileLive) articleIds.add(data.article_id)
  }
  if (articleIds.size === 0) return events
  const keys = [...[...articleIds].map(articleSurrogateKey), listSurrogateKey(tenantId)]
  return [...events, { kind: 'content.purge_requested', data: { keys } }]
}
